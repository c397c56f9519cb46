"""Contains all the data models used in inputs/outputs"""

from .address_confirmation import AddressConfirmation
from .attempt_status import AttemptStatus
from .audit_action import AuditAction
from .audit_actor_resource import AuditActorResource
from .audit_event_resource import AuditEventResource
from .audit_event_resource_after_type_0 import AuditEventResourceAfterType0
from .audit_event_resource_before_type_0 import AuditEventResourceBeforeType0
from .audit_event_resource_object import AuditEventResourceObject
from .balance_transaction_resource import BalanceTransactionResource
from .balance_transaction_resource_object import BalanceTransactionResourceObject
from .balance_type import BalanceType
from .chain_id import ChainId
from .charge_type import ChargeType
from .checkout_session_resource import CheckoutSessionResource
from .checkout_session_resource_metadata import CheckoutSessionResourceMetadata
from .checkout_session_resource_object import CheckoutSessionResourceObject
from .create_payment_link_request import CreatePaymentLinkRequest
from .create_payment_link_request_metadata_type_0 import (
    CreatePaymentLinkRequestMetadataType0,
)
from .create_refund_request import CreateRefundRequest
from .create_refund_request_request import CreateRefundRequestRequest
from .create_webhook_endpoint_request import CreateWebhookEndpointRequest
from .currency import Currency
from .custom_amount_input import CustomAmountInput
from .custom_amount_resource import CustomAmountResource
from .custom_price_input import CustomPriceInput
from .deleted_endpoint import DeletedEndpoint
from .deleted_endpoint_object import DeletedEndpointObject
from .delivery_status import DeliveryStatus
from .endpoint_status import EndpointStatus
from .error import Error
from .error_error import ErrorError
from .error_error_code import ErrorErrorCode
from .error_error_details_item import ErrorErrorDetailsItem
from .error_error_type import ErrorErrorType
from .event_type import EventType
from .fiat import Fiat
from .list_audit_event_resource import ListAuditEventResource
from .list_audit_event_resource_data_item import ListAuditEventResourceDataItem
from .list_audit_event_resource_data_item_after_type_0 import (
    ListAuditEventResourceDataItemAfterType0,
)
from .list_audit_event_resource_data_item_before_type_0 import (
    ListAuditEventResourceDataItemBeforeType0,
)
from .list_audit_event_resource_object import ListAuditEventResourceObject
from .list_balance_transaction_resource import ListBalanceTransactionResource
from .list_balance_transaction_resource_data_item import (
    ListBalanceTransactionResourceDataItem,
)
from .list_balance_transaction_resource_object import (
    ListBalanceTransactionResourceObject,
)
from .list_checkout_session_resource import ListCheckoutSessionResource
from .list_checkout_session_resource_data_item import (
    ListCheckoutSessionResourceDataItem,
)
from .list_checkout_session_resource_data_item_metadata import (
    ListCheckoutSessionResourceDataItemMetadata,
)
from .list_checkout_session_resource_object import ListCheckoutSessionResourceObject
from .list_payment_attempt_resource import ListPaymentAttemptResource
from .list_payment_attempt_resource_data_item import ListPaymentAttemptResourceDataItem
from .list_payment_attempt_resource_object import ListPaymentAttemptResourceObject
from .list_payment_link_resource import ListPaymentLinkResource
from .list_payment_link_resource_data_item import ListPaymentLinkResourceDataItem
from .list_payment_link_resource_data_item_metadata import (
    ListPaymentLinkResourceDataItemMetadata,
)
from .list_payment_link_resource_object import ListPaymentLinkResourceObject
from .list_payment_resource import ListPaymentResource
from .list_payment_resource_data_item import ListPaymentResourceDataItem
from .list_payment_resource_data_item_metadata import (
    ListPaymentResourceDataItemMetadata,
)
from .list_payment_resource_object import ListPaymentResourceObject
from .list_refund_request_resource import ListRefundRequestResource
from .list_refund_request_resource_data_item import ListRefundRequestResourceDataItem
from .list_refund_request_resource_object import ListRefundRequestResourceObject
from .list_refund_resource import ListRefundResource
from .list_refund_resource_data_item import ListRefundResourceDataItem
from .list_refund_resource_object import ListRefundResourceObject
from .list_screening_check_resource import ListScreeningCheckResource
from .list_screening_check_resource_data_item import ListScreeningCheckResourceDataItem
from .list_screening_check_resource_object import ListScreeningCheckResourceObject
from .list_subscription_resource import ListSubscriptionResource
from .list_subscription_resource_data_item import ListSubscriptionResourceDataItem
from .list_subscription_resource_object import ListSubscriptionResourceObject
from .list_wallet_resource import ListWalletResource
from .list_wallet_resource_data_item import ListWalletResourceDataItem
from .list_wallet_resource_object import ListWalletResourceObject
from .list_webhook_attempt_resource import ListWebhookAttemptResource
from .list_webhook_attempt_resource_data_item import ListWebhookAttemptResourceDataItem
from .list_webhook_attempt_resource_object import ListWebhookAttemptResourceObject
from .list_webhook_endpoint_resource import ListWebhookEndpointResource
from .list_webhook_endpoint_resource_data_item import (
    ListWebhookEndpointResourceDataItem,
)
from .list_webhook_endpoint_resource_object import ListWebhookEndpointResourceObject
from .list_webhook_event_resource import ListWebhookEventResource
from .list_webhook_event_resource_data_item import ListWebhookEventResourceDataItem
from .list_webhook_event_resource_data_item_payload import (
    ListWebhookEventResourceDataItemPayload,
)
from .list_webhook_event_resource_object import ListWebhookEventResourceObject
from .payment_attempt_resource import PaymentAttemptResource
from .payment_attempt_resource_object import PaymentAttemptResourceObject
from .payment_link_resource import PaymentLinkResource
from .payment_link_resource_metadata import PaymentLinkResourceMetadata
from .payment_link_resource_object import PaymentLinkResourceObject
from .payment_resource import PaymentResource
from .payment_resource_metadata import PaymentResourceMetadata
from .payment_resource_object import PaymentResourceObject
from .payment_review import PaymentReview
from .payment_session_request import PaymentSessionRequest
from .payment_session_request_chain_type_0 import PaymentSessionRequestChainType0
from .payment_session_request_chain_type_1 import PaymentSessionRequestChainType1
from .payment_session_request_metadata_type_0 import PaymentSessionRequestMetadataType0
from .payment_session_request_mode import PaymentSessionRequestMode
from .payment_status import PaymentStatus
from .price_input import PriceInput
from .price_resource import PriceResource
from .quote_resource import QuoteResource
from .recover_webhook_endpoint_request import RecoverWebhookEndpointRequest
from .recovery_resource import RecoveryResource
from .recovery_resource_object import RecoveryResourceObject
from .refund_request_resource import RefundRequestResource
from .refund_request_resource_object import RefundRequestResourceObject
from .refund_request_status import RefundRequestStatus
from .refund_resource import RefundResource
from .refund_resource_object import RefundResourceObject
from .refund_status import RefundStatus
from .register_wallet_request import RegisterWalletRequest
from .review_payment_request import ReviewPaymentRequest
from .review_status import ReviewStatus
from .screening_check_resource import ScreeningCheckResource
from .send_test_event_request import SendTestEventRequest
from .session_mode import SessionMode
from .session_status import SessionStatus
from .subscription_resource import SubscriptionResource
from .subscription_resource_object import SubscriptionResourceObject
from .subscription_session_request import SubscriptionSessionRequest
from .subscription_session_request_chain_type_0 import (
    SubscriptionSessionRequestChainType0,
)
from .subscription_session_request_chain_type_1 import (
    SubscriptionSessionRequestChainType1,
)
from .subscription_session_request_metadata_type_0 import (
    SubscriptionSessionRequestMetadataType0,
)
from .subscription_session_request_mode import SubscriptionSessionRequestMode
from .subscription_status import SubscriptionStatus
from .update_payment_link_request import UpdatePaymentLinkRequest
from .update_webhook_endpoint_request import UpdateWebhookEndpointRequest
from .verification import Verification
from .verify_wallet_request import VerifyWalletRequest
from .wallet_resource import WalletResource
from .wallet_resource_object import WalletResourceObject
from .wallet_status import WalletStatus
from .webhook_attempt_resource import WebhookAttemptResource
from .webhook_attempt_resource_object import WebhookAttemptResourceObject
from .webhook_endpoint_resource import WebhookEndpointResource
from .webhook_endpoint_resource_object import WebhookEndpointResourceObject
from .webhook_event_resource import WebhookEventResource
from .webhook_event_resource_object import WebhookEventResourceObject
from .webhook_event_resource_payload import WebhookEventResourcePayload
from .x402_authorization import X402Authorization
from .x402_exact_payload import X402ExactPayload
from .x402_facilitator_request import X402FacilitatorRequest
from .x402_payment_payload import X402PaymentPayload
from .x402_payment_payload_extensions_type_0 import X402PaymentPayloadExtensionsType0
from .x402_payment_payload_resource_type_0 import X402PaymentPayloadResourceType0
from .x402_payment_requirements import X402PaymentRequirements
from .x402_payment_requirements_extra import X402PaymentRequirementsExtra
from .x402_settle_response import X402SettleResponse
from .x402_supported import X402Supported
from .x402_supported_kind import X402SupportedKind
from .x402_supported_signers import X402SupportedSigners
from .x402_verify_response import X402VerifyResponse

__all__ = (
    "AddressConfirmation",
    "AttemptStatus",
    "AuditAction",
    "AuditActorResource",
    "AuditEventResource",
    "AuditEventResourceAfterType0",
    "AuditEventResourceBeforeType0",
    "AuditEventResourceObject",
    "BalanceTransactionResource",
    "BalanceTransactionResourceObject",
    "BalanceType",
    "ChainId",
    "ChargeType",
    "CheckoutSessionResource",
    "CheckoutSessionResourceMetadata",
    "CheckoutSessionResourceObject",
    "CreatePaymentLinkRequest",
    "CreatePaymentLinkRequestMetadataType0",
    "CreateRefundRequest",
    "CreateRefundRequestRequest",
    "CreateWebhookEndpointRequest",
    "Currency",
    "CustomAmountInput",
    "CustomAmountResource",
    "CustomPriceInput",
    "DeletedEndpoint",
    "DeletedEndpointObject",
    "DeliveryStatus",
    "EndpointStatus",
    "Error",
    "ErrorError",
    "ErrorErrorCode",
    "ErrorErrorDetailsItem",
    "ErrorErrorType",
    "EventType",
    "Fiat",
    "ListAuditEventResource",
    "ListAuditEventResourceDataItem",
    "ListAuditEventResourceDataItemAfterType0",
    "ListAuditEventResourceDataItemBeforeType0",
    "ListAuditEventResourceObject",
    "ListBalanceTransactionResource",
    "ListBalanceTransactionResourceDataItem",
    "ListBalanceTransactionResourceObject",
    "ListCheckoutSessionResource",
    "ListCheckoutSessionResourceDataItem",
    "ListCheckoutSessionResourceDataItemMetadata",
    "ListCheckoutSessionResourceObject",
    "ListPaymentAttemptResource",
    "ListPaymentAttemptResourceDataItem",
    "ListPaymentAttemptResourceObject",
    "ListPaymentLinkResource",
    "ListPaymentLinkResourceDataItem",
    "ListPaymentLinkResourceDataItemMetadata",
    "ListPaymentLinkResourceObject",
    "ListPaymentResource",
    "ListPaymentResourceDataItem",
    "ListPaymentResourceDataItemMetadata",
    "ListPaymentResourceObject",
    "ListRefundRequestResource",
    "ListRefundRequestResourceDataItem",
    "ListRefundRequestResourceObject",
    "ListRefundResource",
    "ListRefundResourceDataItem",
    "ListRefundResourceObject",
    "ListScreeningCheckResource",
    "ListScreeningCheckResourceDataItem",
    "ListScreeningCheckResourceObject",
    "ListSubscriptionResource",
    "ListSubscriptionResourceDataItem",
    "ListSubscriptionResourceObject",
    "ListWalletResource",
    "ListWalletResourceDataItem",
    "ListWalletResourceObject",
    "ListWebhookAttemptResource",
    "ListWebhookAttemptResourceDataItem",
    "ListWebhookAttemptResourceObject",
    "ListWebhookEndpointResource",
    "ListWebhookEndpointResourceDataItem",
    "ListWebhookEndpointResourceObject",
    "ListWebhookEventResource",
    "ListWebhookEventResourceDataItem",
    "ListWebhookEventResourceDataItemPayload",
    "ListWebhookEventResourceObject",
    "PaymentAttemptResource",
    "PaymentAttemptResourceObject",
    "PaymentLinkResource",
    "PaymentLinkResourceMetadata",
    "PaymentLinkResourceObject",
    "PaymentResource",
    "PaymentResourceMetadata",
    "PaymentResourceObject",
    "PaymentReview",
    "PaymentSessionRequest",
    "PaymentSessionRequestChainType0",
    "PaymentSessionRequestChainType1",
    "PaymentSessionRequestMetadataType0",
    "PaymentSessionRequestMode",
    "PaymentStatus",
    "PriceInput",
    "PriceResource",
    "QuoteResource",
    "RecoverWebhookEndpointRequest",
    "RecoveryResource",
    "RecoveryResourceObject",
    "RefundRequestResource",
    "RefundRequestResourceObject",
    "RefundRequestStatus",
    "RefundResource",
    "RefundResourceObject",
    "RefundStatus",
    "RegisterWalletRequest",
    "ReviewPaymentRequest",
    "ReviewStatus",
    "ScreeningCheckResource",
    "SendTestEventRequest",
    "SessionMode",
    "SessionStatus",
    "SubscriptionResource",
    "SubscriptionResourceObject",
    "SubscriptionSessionRequest",
    "SubscriptionSessionRequestChainType0",
    "SubscriptionSessionRequestChainType1",
    "SubscriptionSessionRequestMetadataType0",
    "SubscriptionSessionRequestMode",
    "SubscriptionStatus",
    "UpdatePaymentLinkRequest",
    "UpdateWebhookEndpointRequest",
    "Verification",
    "VerifyWalletRequest",
    "WalletResource",
    "WalletResourceObject",
    "WalletStatus",
    "WebhookAttemptResource",
    "WebhookAttemptResourceObject",
    "WebhookEndpointResource",
    "WebhookEndpointResourceObject",
    "WebhookEventResource",
    "WebhookEventResourceObject",
    "WebhookEventResourcePayload",
    "X402Authorization",
    "X402ExactPayload",
    "X402FacilitatorRequest",
    "X402PaymentPayload",
    "X402PaymentPayloadExtensionsType0",
    "X402PaymentPayloadResourceType0",
    "X402PaymentRequirements",
    "X402PaymentRequirementsExtra",
    "X402SettleResponse",
    "X402Supported",
    "X402SupportedKind",
    "X402SupportedSigners",
    "X402VerifyResponse",
)
