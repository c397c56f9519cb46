DROP TABLE refund_requests;
