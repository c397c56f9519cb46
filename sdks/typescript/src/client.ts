import createClient, { type Client, type FetchResponse, type MaybeOptionalInit } from "openapi-fetch";
import type { paths } from "./schema.js";
import { StablepayError, retryAfterSeconds } from "./errors.js";

/** The key's mode: test keys work on Base Sepolia (84532), live keys on Base (8453). */
export type Mode = "test" | "live";

export interface RetryInfo {
  /** 1 for the first retry. */
  attempt: number;
  method: string;
  url: string;
  /** The status that is retried, or undefined for a network error. */
  status: number | undefined;
  delayMs: number;
}

export interface StablepayOptions {
  /** A secret key, `svc_sk_test_…` or `svc_sk_live_…`. */
  apiKey: string;
  /** Where the service runs, e.g. `https://pay.example.com` (no `/api/v1`). */
  baseUrl: string;
  /** Retries of one call after a 429, a 409 in flight, a 5xx or a network error (default 3). */
  maxRetries?: number;
  /** The longest wait between two tries, in seconds, whatever `Retry-After` says (default 60). */
  maxRetryDelaySecs?: number;
  /** The fetch to use (default: the global one). */
  fetch?: typeof globalThis.fetch;
  /** Called before each retry (for logs and metrics). */
  onRetry?: (retry: RetryInfo) => void;
}

type Method = "get" | "post" | "delete";
/** The API's paths that have `method`. */
export type PathsWith<M extends Method> = {
  [P in keyof paths]: paths[P] extends { [K in M]: object } ? P : never;
}[keyof paths];
type Init<P extends PathsWith<M>, M extends Method> = MaybeOptionalInit<paths[P], M>;
/** The call's second argument: optional when the operation needs no parameters or body. */
type Args<I> = undefined extends I ? [init?: NonNullable<I>] : [init: I];
/** What a successful call returns: the 2xx body, parsed. */
export type Data<P extends PathsWith<M>, M extends Method, I = Init<P, M>> = NonNullable<
  FetchResponse<NonNullable<paths[P][M]> & Record<string | number, any>, I, `${string}/${string}`>["data"]
>;

/** Paths of the list endpoints: GET answers `{ data: [...], has_more }`. */
export type ListPath = {
  [P in PathsWith<"get">]: Data<P, "get"> extends { data: unknown[]; has_more: boolean } ? P : never;
}[PathsWith<"get">];
/** One item of a list endpoint's `data`. */
export type ListItem<P extends ListPath> = Data<P, "get"> extends { data: (infer T)[] } ? T : never;

/**
 * A client for one API key. `get`, `post` and `delete` take the API's paths and their
 * typed parameters and body (openapi-fetch's shapes) and return the parsed body, or throw
 * a `StablepayError` carrying the error envelope.
 *
 * Every POST gets an `Idempotency-Key` (a fresh UUID unless `params.header` names one),
 * kept across its retries, so a retried create never creates twice.
 */
export class Stablepay {
  readonly mode: Mode;
  /** The underlying openapi-fetch client (same auth, idempotency and retries). */
  readonly raw: Client<paths>;

  constructor(options: StablepayOptions) {
    const mode = /^svc_sk_(test|live)_/.exec(options.apiKey)?.[1];
    if (mode !== "test" && mode !== "live") {
      throw new TypeError("apiKey must be a secret key: svc_sk_test_… or svc_sk_live_…");
    }
    this.mode = mode;
    this.raw = createClient<paths>({
      baseUrl: options.baseUrl.replace(/\/+$/, ""),
      headers: { Authorization: `Bearer ${options.apiKey}` },
      fetch: retrying(options),
    });
  }

  async get<P extends PathsWith<"get">, I extends Init<P, "get">>(
    path: P,
    ...init: Args<I>
  ): Promise<Data<P, "get", I>> {
    return unwrap(await (this.raw.GET as AnyCall)(path, ...init));
  }

  async post<P extends PathsWith<"post">, I extends Init<P, "post">>(
    path: P,
    ...init: Args<I>
  ): Promise<Data<P, "post", I>> {
    return unwrap(await (this.raw.POST as AnyCall)(path, ...init));
  }

  async delete<P extends PathsWith<"delete">, I extends Init<P, "delete">>(
    path: P,
    ...init: Args<I>
  ): Promise<Data<P, "delete", I>> {
    return unwrap(await (this.raw.DELETE as AnyCall)(path, ...init));
  }

  /**
   * Every item of a list, newest first, fetching pages of `limit` (default 100) with
   * `starting_after` as it goes: `for await (const p of sp.paginate("/api/v1/payments"))`.
   */
  async *paginate<P extends ListPath>(path: P, ...init: Args<Init<P, "get">>): AsyncGenerator<ListItem<P>> {
    const first = (init[0] ?? {}) as { params?: { query?: Record<string, unknown> } };
    let query: Record<string, unknown> = { limit: 100, ...(first.params?.query ?? {}) };
    for (;;) {
      const options = { ...first, params: { ...first.params, query } };
      const page: { data: ListItem<P>[]; has_more: boolean } = unwrap(
        await (this.raw.GET as AnyCall)(path, options),
      );
      yield* page.data;
      const last = page.data[page.data.length - 1] as { id: string } | undefined;
      if (!page.has_more || last === undefined) return;
      query = { ...query, starting_after: last.id };
    }
  }
}

// The generic signatures above are checked at the call site; inside, one untyped call.
type AnyCall = (path: string, ...init: unknown[]) => Promise<any>;

function unwrap(result: { data?: unknown; error?: unknown; response: Response }): any {
  if (result.error !== undefined || !result.response.ok) {
    throw new StablepayError(result.response.status, result.error, result.response.headers);
  }
  return result.data;
}

/**
 * A fetch that gives every POST an `Idempotency-Key` (a fresh UUID unless the call named
 * one), kept across its tries, and tries again, waiting as `Retry-After` says or backing off exponentially
 * (0.5 s, 1 s, 2 s, … with jitter), both capped at `maxRetryDelaySecs`: after a 429 (the
 * rate limit: the request did not run) always; after a 409 carrying `Retry-After` (the
 * same Idempotency-Key still in flight), a 5xx or a network error for GET and POST (every
 * POST carries its key), never for DELETE, whose first try may have worked. An aborted
 * request is not retried, and aborting ends a wait.
 */
function retrying(options: StablepayOptions): typeof globalThis.fetch {
  const base = options.fetch ?? globalThis.fetch;
  const maxRetries = options.maxRetries ?? 3;
  const capMs = (options.maxRetryDelaySecs ?? 60) * 1000;
  return async (input, init) => {
    const request = new Request(input, init);
    if (request.method === "POST" && !request.headers.has("Idempotency-Key")) {
      request.headers.set("Idempotency-Key", await randomKey());
    }
    for (let attempt = 0; ; attempt++) {
      let response: Response | undefined;
      let failure: unknown;
      try {
        response = await base(request.clone());
      } catch (error) {
        if (request.signal.aborted) throw error;
        failure = error;
      }
      const delayMs =
        attempt < maxRetries ? retryDelayMs(request.method, response, attempt, capMs) : undefined;
      if (delayMs === undefined) {
        if (response === undefined) throw failure;
        return response;
      }
      options.onRetry?.({
        attempt: attempt + 1,
        method: request.method,
        url: request.url,
        status: response?.status,
        delayMs,
      });
      await response?.body?.cancel();
      await sleep(delayMs, request.signal);
    }
  };
}

/** Waits `ms`, or rejects with the signal's reason once it aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** How long to wait before trying again, or undefined when the answer is final. */
function retryDelayMs(
  method: string,
  response: Response | undefined,
  attempt: number,
  capMs: number,
): number | undefined {
  const backoff = Math.min(capMs, 500 * 2 ** attempt * (0.75 + Math.random() / 2));
  const retryAfter = response === undefined ? undefined : retryAfterSeconds(response.headers);
  const wait = retryAfter !== undefined ? Math.min(capMs, retryAfter * 1000) : backoff;
  if (response?.status === 429) return wait;
  if (method === "DELETE") return undefined;
  if (response === undefined) return backoff;
  const status = response.status;
  return status >= 500 || (status === 409 && retryAfter !== undefined) ? wait : undefined;
}

/** A v4 UUID: the global WebCrypto's, or Node 18's `node:crypto` where there is no global. */
async function randomKey(): Promise<string> {
  const crypto = (globalThis as { crypto?: Crypto }).crypto;
  if (crypto?.randomUUID) return crypto.randomUUID();
  const nodeCrypto = (await import("node:crypto" as string)) as { randomUUID(): string };
  return nodeCrypto.randomUUID();
}
