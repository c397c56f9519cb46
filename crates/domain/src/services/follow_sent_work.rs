//! What to do with sent work no attempt of which is mined (D26, D31): one rule for every
//! kind. Not yet due ([`resend_due`]): wait. Due, but its nonce went to a transaction
//! that is none of its attempts: give it up. Otherwise send it again, replaced at higher
//! fees while it is still wanted and filled when it is not.

use std::future::Future;

use crate::ports::{
    ChargeAttempt, Clock, Resent, SendError, SentAttempts, SentReceipts, SentWork,
    TransactionSender,
};
use crate::rules::resend::resend_due;

/// The ports every kind of sent work is followed through.
#[derive(Clone, Copy)]
pub struct SendingDeps<'a> {
    pub receipts: &'a dyn SentReceipts,
    pub attempts: &'a dyn SentAttempts,
    /// The key that replaces and fills; `None` without one (work of a removed key is
    /// only followed to its receipt).
    pub sender: Option<&'a dyn TransactionSender>,
    pub clock: &'a dyn Clock,
}

/// What became of unmined work this time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unmined {
    /// Not due yet, or no key to send it with.
    Waiting,
    /// Its nonce went to another transaction: it can never be mined.
    NonceLost,
    /// Sent again.
    Resent(Resent),
}

/// Follows `work` (none of whose attempts is mined) with the chain at `head`. `wanted`
/// is asked only when the work is due and its nonce still free, so the caller re-reads
/// what it depends on just before the re-send.
pub async fn follow_unmined<W>(
    work: &SentWork,
    head: u64,
    wanted: W,
    deps: SendingDeps<'_>,
) -> Result<Unmined, SendError>
where
    W: Future<Output = Result<bool, SendError>>,
{
    let Some(sender) = deps.sender else {
        return Ok(Unmined::Waiting);
    };
    if !resend_due(
        work.sent_block,
        head,
        work.last_broadcast_at,
        deps.clock.now(),
    ) {
        return Ok(Unmined::Waiting);
    }
    if nonce_lost(work, deps).await? {
        return Ok(Unmined::NonceLost);
    }
    let wanted = wanted.await?;
    let resent = sender
        .resend(work.kind, work.chain, work.tx_hash, wanted)
        .await?;
    Ok(Unmined::Resent(resent))
}

/// Whether `work`'s nonce went to a transaction that is none of its attempts: the
/// account's mined nonce is past it and still no attempt has a receipt. The attempts are
/// read again from the store and asked for after the nonce, so a replacement another
/// worker stored meanwhile, one mined meanwhile, or one a lagging node had not indexed, is
/// seen and the work is never written off while it went through.
pub async fn nonce_lost(work: &SentWork, deps: SendingDeps<'_>) -> Result<bool, SendError> {
    let mined = deps.receipts.mined_nonce(work.chain, work.sender).await?;
    if mined <= work.nonce {
        return Ok(false);
    }
    let mut attempts: Vec<ChargeAttempt> = deps
        .attempts
        .attempts_at(work.chain, work.sender, work.nonce)
        .await?;
    for known in &work.attempts {
        if !attempts.iter().any(|a| a.tx_hash == known.tx_hash) {
            attempts.push(*known);
        }
    }
    let receipt = deps.receipts.mined_attempt(work.chain, &attempts).await?;
    Ok(receipt.is_none())
}

#[cfg(test)]
mod tests;
