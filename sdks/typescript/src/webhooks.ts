import type { components } from "./schema.js";
import { StablepaySignatureError } from "./errors.js";

/** The delivered envelope (`id`, `type`, `created_at`, `data.object`). */
export interface WebhookEvent<T = unknown> {
  id: string;
  type: components["schemas"]["EventType"];
  created_at: string;
  data: { object: T };
}

export interface VerifyOptions {
  /** Largest accepted difference between the signature's time and now, in seconds. */
  toleranceSecs?: number;
  /** Unix seconds to compare against (default: now). */
  now?: number;
}

/** Header name: every delivery carries `Svc-Signature: t=<unix seconds>,v1=<hex>`. */
export const SIGNATURE_HEADER = "Svc-Signature";

/**
 * Whether `header` signs `rawBody` with one of `secrets` (two during a rotation) within the
 * tolerance. `rawBody` is the body exactly as received: a re-serialised object never
 * verifies. Never throws; a malformed header is `false`.
 */
export async function verify(
  header: string | null | undefined,
  rawBody: string | Uint8Array,
  secrets: string | readonly string[],
  options: VerifyOptions = {},
): Promise<boolean> {
  const parsed = parseHeader(header);
  if (parsed === undefined) return false;
  const tolerance = options.toleranceSecs ?? 300;
  const now = options.now ?? Math.floor(Date.now() / 1000);
  // Written as !(x <= tol) so that a NaN clock also rejects.
  if (!(Math.abs(now - parsed.t) <= tolerance)) return false;
  const body = typeof rawBody === "string" ? new TextEncoder().encode(rawBody) : rawBody;
  const signed = concat(new TextEncoder().encode(`${parsed.t}.`), body);
  const subtle = await subtleCrypto();
  for (const secret of typeof secrets === "string" ? [secrets] : secrets) {
    // WebCrypto refuses an empty HMAC key; an empty secret (an unset variable) verifies nothing.
    if (typeof secret !== "string" || secret === "") continue;
    const key = await subtle.importKey(
      "raw",
      new TextEncoder().encode(secret),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["verify"],
    );
    for (const sig of parsed.signatures) {
      // HMAC verify compares in constant time.
      if (await subtle.verify("HMAC", key, sig, signed)) return true;
    }
  }
  return false;
}

/**
 * Verifies a delivery and returns its parsed envelope; throws `StablepaySignatureError`
 * when it does not verify (answer the delivery with a 400 then).
 */
export async function constructEvent<T = unknown>(
  rawBody: string | Uint8Array,
  header: string | null | undefined,
  secrets: string | readonly string[],
  options: VerifyOptions = {},
): Promise<WebhookEvent<T>> {
  if (!(await verify(header, rawBody, secrets, options))) {
    throw new StablepaySignatureError(
      "The Svc-Signature header does not verify this body with the endpoint's secret (or it is too old)",
    );
  }
  const text = typeof rawBody === "string" ? rawBody : new TextDecoder().decode(rawBody);
  return JSON.parse(text) as WebhookEvent<T>;
}

interface ParsedHeader {
  /** The signed string starts with this number in decimal (`t=0170…` signs `170…`). */
  t: number;
  signatures: Uint8Array<ArrayBuffer>[];
}

/** "t=<unix seconds>,v1=<hex>[,v1=<hex>]"; other schemes are ignored. */
function parseHeader(header: string | null | undefined): ParsedHeader | undefined {
  if (typeof header !== "string") return undefined;
  let tRaw: string | undefined;
  const signatures: Uint8Array<ArrayBuffer>[] = [];
  for (const part of header.split(",")) {
    const entry = part.trim();
    const eq = entry.indexOf("=");
    if (eq < 0) return undefined;
    const key = entry.slice(0, eq);
    const value = entry.slice(eq + 1);
    if (key === "t") {
      if (!/^[+-]?[0-9]+$/.test(value)) return undefined;
      tRaw = value;
    } else if (key === "v1") {
      if (!/^(?:[0-9a-fA-F]{2})*$/.test(value)) return undefined;
      signatures.push(hex(value));
    }
  }
  if (tRaw === undefined || signatures.length === 0) return undefined;
  return { t: Number(tRaw), signatures };
}

function hex(value: string): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(new ArrayBuffer(value.length / 2));
  for (let i = 0; i < out.length; i++) out[i] = parseInt(value.slice(2 * i, 2 * i + 2), 16);
  return out;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(new ArrayBuffer(a.length + b.length));
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

/** WebCrypto: global in Node 19+; Node 18 has it under `node:crypto`. */
async function subtleCrypto(): Promise<SubtleCrypto> {
  const global = (globalThis as { crypto?: Crypto }).crypto;
  if (global?.subtle) return global.subtle;
  const nodeCrypto = (await import("node:crypto" as string)) as { webcrypto: Crypto };
  return nodeCrypto.webcrypto.subtle;
}
