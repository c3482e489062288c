import { problemBody, type Problem } from "../../http/problem.ts";
import { API_ERRORS, type ApiErrorCode } from "./error-codes.ts";

export { API_ERRORS, type ApiErrorCode } from "./error-codes.ts";

export type ParamError = { param: string; message: string };

export class ApiError extends Error {
  override name = "ApiError";
  readonly code: ApiErrorCode;
  readonly options: {
    errors?: ParamError[];
    headers?: Record<string, string>;
    extensions?: Record<string, unknown>;
    /** The known key this refuses, never sent: the request log files the request under it. */
    refusedKey?: { id: string; orgId: string };
  };

  constructor(code: ApiErrorCode, message: string, options: ApiError["options"] = {}) {
    super(message);
    this.code = code;
    this.options = options;
  }

  get status(): number {
    return API_ERRORS[this.code].status;
  }

  toProblem(requestId: string): Problem {
    return problemBody(this.status, this.code, API_ERRORS[this.code].title, this.message, requestId, {
      ...(this.options.errors ? { errors: this.options.errors } : {}),
      ...this.options.extensions,
    });
  }
}
