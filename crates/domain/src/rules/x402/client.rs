//! The payer's side of "exact": what it reads from a session's requirements (the token's
//! EIP-712 domain, the authorization to sign) and the payment it sends. The service never
//! pays; its benches, its tests and any Rust client build payments with these.

use serde_json::Value;

use super::{AuthorizationFields, ExactPayload, PaymentPayload, Requirements, VERSION};
use crate::model::{Address, Signature, Timestamp};
use crate::rules::eip3009::{TokenDomain, TransferAuthorization};

impl Requirements {
    /// The token's EIP-712 domain these requirements name (`extra.name` and
    /// `extra.version`, the network's chain, the asset): what an "exact" payer signs under.
    pub fn token_domain(&self) -> Result<TokenDomain, String> {
        let text = |field: &str| {
            self.extra
                .get(field)
                .and_then(Value::as_str)
                .map(str::to_owned)
                .ok_or_else(|| format!("the requirements carry no extra.{field}"))
        };
        let chain_id = self
            .network
            .strip_prefix("eip155:")
            .and_then(|id| id.parse().ok())
            .ok_or_else(|| format!("network {} is not eip155:<chain id>", self.network))?;
        Ok(TokenDomain {
            name: text("name")?,
            version: text("version")?,
            chain_id,
            token: Address::parse(&self.asset.to_lowercase()).map_err(|e| format!("asset: {e}"))?,
        })
    }

    /// The authorization an "exact" payer signs for these requirements: exactly `amount`
    /// from `from` to `payTo`, valid from `now` for `maxTimeoutSeconds`, under `nonce`
    /// (the SDKs draw 32 random bytes).
    pub fn authorization(
        &self,
        from: Address,
        now: Timestamp,
        nonce: [u8; 32],
    ) -> Result<TransferAuthorization, String> {
        Ok(TransferAuthorization {
            from,
            to: Address::parse(&self.pay_to.to_lowercase()).map_err(|e| format!("payTo: {e}"))?,
            value: self
                .amount
                .parse()
                .map_err(|_| format!("amount {} is not an integer", self.amount))?,
            valid_after: 0,
            valid_before: u64::try_from(now.unix_seconds())
                .unwrap_or(0)
                .checked_add(self.max_timeout_seconds)
                .ok_or_else(|| {
                    format!(
                        "maxTimeoutSeconds {} is too large",
                        self.max_timeout_seconds
                    )
                })?,
            nonce,
        })
    }
}

impl PaymentPayload {
    /// An "exact" payment of `accepted` by a signed EIP-3009 authorization, as the SDKs'
    /// clients send it (every number a decimal string, the nonce 0x-hex).
    pub fn exact(
        accepted: Requirements,
        authorization: &TransferAuthorization,
        signature: &Signature,
    ) -> Self {
        Self {
            x402_version: VERSION,
            payload: ExactPayload {
                signature: signature.to_hex(),
                authorization: AuthorizationFields {
                    from: authorization.from.to_string(),
                    to: authorization.to.to_string(),
                    value: authorization.value.to_string(),
                    valid_after: authorization.valid_after.to_string(),
                    valid_before: authorization.valid_before.to_string(),
                    nonce: format!("0x{}", hex::encode(authorization.nonce)),
                },
            },
            accepted,
            resource: None,
            extensions: None,
        }
    }
}
