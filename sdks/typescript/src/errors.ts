import type { components } from "./schema.js";

/** The error envelope's `error` object, as every non-2xx answer carries it. */
export type ErrorBody = components["schemas"]["Error"]["error"];

/**
 * A non-2xx answer from the API: the envelope's `code` (`invalid_request_error`,
 * `authentication_error`, `not_found_error`, `conflict_error`, `idempotency_error`,
 * `rate_limit_error`, `api_error`, …), its message, and on validation failures the
 * fields at fault (`param` is the first of them).
 */
export class StablepayError extends Error {
  readonly status: number;
  readonly code: string;
  /** Deprecated alias of `code`, as the envelope carries it. */
  readonly type: string;
  readonly param: string | undefined;
  readonly details: { field: string; message: string }[];
  /** The `Request-Id` header: what support needs to find the request. */
  readonly requestId: string | undefined;
  /** `Retry-After` in seconds, when the answer carried one (429, 503). */
  readonly retryAfter: number | undefined;

  constructor(status: number, body: unknown, headers: Headers) {
    const error = envelope(body);
    super(error?.message ?? `HTTP ${status} without an error envelope`);
    this.name = "StablepayError";
    this.status = status;
    this.code = error?.code ?? (status >= 500 ? "api_error" : "unknown_error");
    this.type = error?.type ?? this.code;
    this.details = error?.details ?? [];
    this.param = this.details[0]?.field;
    this.requestId = headers.get("request-id") ?? undefined;
    this.retryAfter = retryAfterSeconds(headers);
  }
}

/** A webhook whose `Svc-Signature` does not verify (wrong secret, altered body, too old). */
export class StablepaySignatureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StablepaySignatureError";
  }
}

function envelope(body: unknown): ErrorBody | undefined {
  if (typeof body !== "object" || body === null || !("error" in body)) return undefined;
  const error = (body as { error: unknown }).error;
  if (typeof error !== "object" || error === null) return undefined;
  const e = error as Partial<ErrorBody>;
  return typeof e.code === "string" && typeof e.message === "string" ? (e as ErrorBody) : undefined;
}

/** `Retry-After` as whole seconds (the API sends seconds; an HTTP date is read too). */
export function retryAfterSeconds(headers: Headers): number | undefined {
  const value = headers.get("retry-after");
  if (value === null) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}
