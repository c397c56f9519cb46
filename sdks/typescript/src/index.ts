export { Stablepay } from "./client.js";
export type { Data, ListItem, ListPath, Mode, PathsWith, RetryInfo, StablepayOptions } from "./client.js";
export { StablepayError, StablepaySignatureError } from "./errors.js";
export type { ErrorBody } from "./errors.js";
export * as webhooks from "./webhooks.js";
export type { WebhookEvent, VerifyOptions } from "./webhooks.js";
export type { components, operations, paths } from "./schema.js";
