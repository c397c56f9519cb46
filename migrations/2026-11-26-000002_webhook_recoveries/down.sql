DROP TABLE webhook_recoveries;
