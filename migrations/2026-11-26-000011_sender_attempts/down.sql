DROP TABLE sender_attempts;
