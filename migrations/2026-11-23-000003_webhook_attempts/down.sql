DROP TABLE webhook_attempts;
