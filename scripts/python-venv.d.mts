export interface VenvOptions {
  /** The pinned requirements file (with hashes). */
  requirements: string;
  /** The directory under node_modules/.cache/ that keeps the environments. */
  cacheName: string;
  /** The interpreter that makes the venv. */
  python: string;
  /** The variable that names another interpreter, for the failure message. */
  pythonVariable: string;
  /** The lowest Python (3.minor) the requirements install on. */
  minimumMinor: number;
  /** What needs it, for the failure message ("the schemathesis test"). */
  purpose: string;
  /** Called when the venv is not there yet and is about to be made. */
  onMake?: () => void;
}

export declare const VENV_TIMEOUT_MS: number;
export declare function runCommand(
  file: string,
  args: string[],
  timeout: number,
  options?: { cwd?: string; env?: NodeJS.ProcessEnv },
): Promise<{ stdout: string; stderr: string }>;
export declare function pinnedPython(options: VenvOptions): Promise<string>;
export declare function pythonClientPython(onMake?: () => void): Promise<string>;
export declare function schemathesisPython(): Promise<string>;
