import { assertNever, DomainError, ErrorCode } from '#common';

export enum TasksErrorCode {
  WorkspaceNotFound = 'WORKSPACE_NOT_FOUND',
  TaskNotFound = 'TASK_NOT_FOUND',
  SessionNotFound = 'SESSION_NOT_FOUND',
  TurnNotFound = 'TURN_NOT_FOUND',
  TaskArchived = 'TASK_ARCHIVED',
  SessionEnded = 'SESSION_ENDED',
  InvalidStateTransition = 'INVALID_STATE_TRANSITION',
  InvalidArgument = 'INVALID_ARGUMENT',
}

export class TasksError extends DomainError<TasksErrorCode> {
  constructor(code: TasksErrorCode, message: string) {
    super(code, message);
  }

  static workspaceNotFound = () => new TasksError(TasksErrorCode.WorkspaceNotFound, 'workspace not found');
  static taskNotFound = () => new TasksError(TasksErrorCode.TaskNotFound, 'task not found');
  static sessionNotFound = () => new TasksError(TasksErrorCode.SessionNotFound, 'session not found');
  static turnNotFound = () => new TasksError(TasksErrorCode.TurnNotFound, 'turn not found');
  static invalidArgument = (message: string) => new TasksError(TasksErrorCode.InvalidArgument, message);

  get httpStatus(): number {
    switch (this.code) {
      case TasksErrorCode.WorkspaceNotFound:
      case TasksErrorCode.TaskNotFound:
      case TasksErrorCode.SessionNotFound:
      case TasksErrorCode.TurnNotFound:
        return 404;
      case TasksErrorCode.TaskArchived:
      case TasksErrorCode.SessionEnded:
      case TasksErrorCode.InvalidStateTransition:
        return 409;
      case TasksErrorCode.InvalidArgument:
        return 400;
      default:
        return assertNever(this.code);
    }
  }

  get publicCode(): ErrorCode {
    switch (this.code) {
      case TasksErrorCode.WorkspaceNotFound:
      case TasksErrorCode.TaskNotFound:
      case TasksErrorCode.SessionNotFound:
      case TasksErrorCode.TurnNotFound:
        return ErrorCode.NotFound;
      case TasksErrorCode.TaskArchived:
      case TasksErrorCode.SessionEnded:
      case TasksErrorCode.InvalidStateTransition:
        return ErrorCode.Conflict;
      case TasksErrorCode.InvalidArgument:
        return ErrorCode.ValidationError;
      default:
        return assertNever(this.code);
    }
  }
}
