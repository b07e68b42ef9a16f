export { withParleyApproval, approvalRequestsOf, askApprovals, runWithApprovals, type ApprovalTarget, type StepResult, type ToolApprovalRequestPart } from './approvals.js';
export { askHumanTool } from './ask-human.tool.js';
export type { ApprovalDecision } from '../shared/approval.questions.js';
export type { HumanQuestionsInput, HumanReply, ReadableAnswer } from '../shared/human-question.types.js';
