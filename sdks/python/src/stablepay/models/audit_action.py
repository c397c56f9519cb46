from enum import StrEnum


class AuditAction(StrEnum):
    API_KEY_CREATED = "api_key.created"
    API_KEY_REVOKED = "api_key.revoked"
    PAYMENT_REVIEW_APPROVED = "payment.review_approved"
    PAYMENT_REVIEW_RETURNED = "payment.review_returned"
    REFUND_REPORTED = "refund.reported"
    REFUND_REQUEST_CREATED = "refund_request.created"
    SETTINGS_SCREENING_UPDATED = "settings.screening_updated"
    SETTINGS_UNDERPAYMENT_TOLERANCE_UPDATED = "settings.underpayment_tolerance_updated"
    USER_DISABLED = "user.disabled"
    USER_INVITED = "user.invited"
    USER_PASSWORD_SET = "user.password_set"
    USER_TOTP_ENABLED = "user.totp_enabled"
    USER_TOTP_REMOVED = "user.totp_removed"
    WALLET_REGISTERED = "wallet.registered"
    WALLET_REVOKED = "wallet.revoked"
    WALLET_VERIFIED = "wallet.verified"
    WEBHOOK_ENDPOINT_CREATED = "webhook_endpoint.created"
    WEBHOOK_ENDPOINT_DELETED = "webhook_endpoint.deleted"
    WEBHOOK_ENDPOINT_SECRET_ROTATED = "webhook_endpoint.secret_rotated"
    WEBHOOK_ENDPOINT_UPDATED = "webhook_endpoint.updated"

    def __str__(self) -> str:
        return str(self.value)
