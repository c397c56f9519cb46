DROP FUNCTION idempotency_answer_refused(text);
