//! What every loop that follows sent work holds (D31): the chain's receipts, the stored
//! attempts, the key's sender and the clock, lent to the domain as `SendingDeps`.

use std::sync::Arc;

use stablepay_domain::ports::{Clock, SentAttempts, SentReceipts, TransactionSender};
use stablepay_domain::services::SendingDeps;

pub struct SendingPorts {
    pub receipts: Arc<dyn SentReceipts>,
    pub attempts: Arc<dyn SentAttempts>,
    /// Replaces and fills with the key that sent the work (`None` without one: stuck work
    /// of a removed key is only followed to its receipts).
    pub sender: Option<Arc<dyn TransactionSender>>,
    pub clock: Arc<dyn Clock>,
}

impl SendingPorts {
    pub fn deps(&self) -> SendingDeps<'_> {
        SendingDeps {
            receipts: self.receipts.as_ref(),
            attempts: self.attempts.as_ref(),
            sender: self.sender.as_deref(),
            clock: self.clock.as_ref(),
        }
    }
}
