//! Pure decoding of a node's answers (receipts, logs, blocks, plan reads) into the
//! domain's facts. A missing or malformed field makes the whole answer unknown
//! (`ChainError::Unavailable`, retried; D17): never a panic, never a guessed value.

use ethers::abi::RawLog;
use ethers::contract::EthEvent;
#[cfg(test)]
use ethers::types::Bytes;
use ethers::types::{Block, Log, TransactionReceipt, H160, H256, U256, U64};
use stablepay_domain::ports::{
    ChainError, ChainReceipt, CheckoutPaid, LoggedTx, OnChainPlan, SubscriptionEvent,
    SubscriptionLog, TokenTransfer, TransferLog,
};
#[cfg(test)]
use stablepay_domain::Address;
use stablepay_domain::{BlockHash, Timestamp, TxHash};

use crate::bindings::checkout_router::CheckoutPaidFilter;
use crate::bindings::subscription_manager::{CanceledFilter, ChargedFilter, SubscribedFilter};
use crate::{from_h160, redact_urls};

/// keccak256("Transfer(address,address,uint256)")
pub(crate) const TRANSFER_TOPIC: [u8; 32] = [
    0xdd, 0xf2, 0x52, 0xad, 0x1b, 0xe2, 0xc8, 0x9b, 0x69, 0xc2, 0xb0, 0x68, 0xfc, 0x37, 0x8d, 0xaa,
    0x95, 0x2b, 0xa7, 0xf1, 0x63, 0xc4, 0xa1, 0x16, 0x28, 0xf5, 0x5a, 0x4d, 0xf5, 0x23, 0xb3, 0xef,
];

fn u128_of(v: U256) -> Option<u128> {
    u128::try_from(v).ok()
}

/// A node's answer that is missing a field or malformed: unknown, retried (D17).
fn malformed(what: &str, detail: impl std::fmt::Display) -> ChainError {
    ChainError::Unavailable(redact_urls(&format!("{what}: malformed answer: {detail}")))
}

/// A log's position in its block; `None` when the node left it out or it exceeds u64.
fn log_index(log: &Log) -> Option<u64> {
    log.log_index.and_then(|i| u64::try_from(i).ok())
}

fn decode_transfer(log: &Log, log_index: u64) -> Option<TokenTransfer> {
    let [topic0, from, to] = log.topics.as_slice() else {
        return None;
    };
    if topic0.0 != TRANSFER_TOPIC || log.data.len() != 32 {
        return None;
    }
    Some(TokenTransfer {
        token: from_h160(log.address),
        from: from_h160(H160::from(*from)),
        to: from_h160(H160::from(*to)),
        // `from_big_endian` panics beyond 32 bytes: the length is checked above.
        value: u128_of(U256::from_big_endian(&log.data))?,
        log_index,
    })
}

fn decode_checkout_paid(log: &Log, log_index: u64) -> Option<CheckoutPaid> {
    if log.topics.first() != Some(&CheckoutPaidFilter::signature()) {
        return None;
    }
    let event = CheckoutPaidFilter::decode_log(&RawLog {
        topics: log.topics.clone(),
        data: log.data.to_vec(),
    })
    .ok()?;
    Some(CheckoutPaid {
        router: from_h160(log.address),
        reference: event.ref_,
        payer: from_h160(event.payer),
        recipient: from_h160(event.recipient),
        token: from_h160(event.token),
        net_amount: u128_of(event.net_amount)?,
        fee_amount: u128_of(event.fee_amount)?,
        log_index,
    })
}

/// Whether ABI word `word` of `data` holds a value that fits u64. ethers decodes a `uint64`
/// with `low_u128() as u64`, silently dropping high bits that no Solidity encoder sets.
fn word_fits_u64(data: &[u8], word: usize) -> bool {
    data.get(word * 32..word * 32 + 24)
        .is_some_and(|high| high.iter().all(|b| *b == 0))
}

fn decode_subscription_event(log: &Log, log_index: u64) -> Option<SubscriptionLog> {
    let topic = *log.topics.first()?;
    let raw = RawLog {
        topics: log.topics.clone(),
        data: log.data.to_vec(),
    };
    let event = if topic == SubscribedFilter::signature() {
        let e = SubscribedFilter::decode_log(&raw).ok()?;
        SubscriptionEvent::Subscribed {
            subscription_id: u128_of(e.subscription_id)?,
            plan_id: u128_of(e.plan_id)?,
            subscriber: from_h160(e.subscriber),
            reference: e.ref_,
            fee_amount: u128_of(e.fee_amount)?,
        }
    } else if topic == ChargedFilter::signature() {
        let e = ChargedFilter::decode_log(&raw).ok()?;
        // Data words: netAmount, feeAmount, nextChargeAt. A truncated due date is no event.
        if !word_fits_u64(&log.data, 2) {
            return None;
        }
        SubscriptionEvent::Charged {
            subscription_id: u128_of(e.subscription_id)?,
            plan_id: u128_of(e.plan_id)?,
            subscriber: from_h160(e.subscriber),
            net_amount: u128_of(e.net_amount)?,
            fee_amount: u128_of(e.fee_amount)?,
            next_charge_at: e.next_charge_at,
        }
    } else if topic == CanceledFilter::signature() {
        let e = CanceledFilter::decode_log(&raw).ok()?;
        SubscriptionEvent::Canceled {
            subscription_id: u128_of(e.subscription_id)?,
            by: from_h160(e.by),
        }
    } else {
        return None;
    };
    Some(SubscriptionLog {
        manager: from_h160(log.address),
        log_index,
        event,
    })
}

/// The transactions of an `eth_getLogs` answer for blocks `from..=to`, one entry each, in
/// the answer's order. Every log of a numbered range claims to be mined: one without its
/// transaction hash, block number or block hash, or outside the range, makes the whole
/// answer unknown (skipping it would let the scan cursor move past the transaction).
pub(crate) fn logged_txs_of(logs: &[Log], from: u64, to: u64) -> Result<Vec<LoggedTx>, ChainError> {
    let mut seen = std::collections::HashSet::new();
    let mut txs: Vec<LoggedTx> = Vec::new();
    for log in logs {
        let logged = logged_tx_of(log, from, to)?;
        if seen.insert(logged.tx_hash) {
            txs.push(logged);
        }
    }
    Ok(txs)
}

/// The transaction and block a log names, checked to lie in `from..=to`.
fn logged_tx_of(log: &Log, from: u64, to: u64) -> Result<LoggedTx, ChainError> {
    let (Some(tx), Some(number), Some(hash)) =
        (log.transaction_hash, log.block_number, log.block_hash)
    else {
        return Err(malformed(
            "eth_getLogs",
            "a log without its transaction hash, block number or block hash",
        ));
    };
    // U64 is a single 64-bit word: `as_u64` cannot overflow.
    let number = number.as_u64();
    if !(from..=to).contains(&number) {
        return Err(malformed(
            "eth_getLogs",
            format_args!("a log of block {number}, outside {from}..={to}"),
        ));
    }
    Ok(LoggedTx {
        tx_hash: TxHash::from_bytes(tx.0),
        block_number: number,
        block_hash: BlockHash::from_bytes(hash.0),
    })
}

/// Every ERC-20 `Transfer` log with its recipient (topic 2). A log that is not a
/// standard `Transfer` (another topic layout) names no recipient and is skipped: the
/// receipt decides what counts.
pub(crate) fn transfer_logs_of(
    logs: &[Log],
    from: u64,
    to: u64,
) -> Result<Vec<TransferLog>, ChainError> {
    let mut transfers = Vec::with_capacity(logs.len());
    for log in logs {
        let tx = logged_tx_of(log, from, to)?;
        if log.topics.len() != 3 || log.topics[0].0 != TRANSFER_TOPIC {
            continue;
        }
        transfers.push(TransferLog {
            tx,
            to: from_h160(H160::from(log.topics[2])),
        });
    }
    Ok(transfers)
}

/// What a receipt for `tx` says. `Ok(None)`: not a fact yet (no block number or hash, a
/// pending or half-indexed answer; D17). In a mined receipt, another transaction's hash, a
/// status other than 0 or 1 (or none), or a log whose index is missing or beyond u64 makes
/// the whole answer unknown (`Unavailable`): log indexes key unique constraints downstream.
pub(crate) fn receipt_facts(
    tx: TxHash,
    r: &TransactionReceipt,
) -> Result<Option<ChainReceipt>, ChainError> {
    const WHAT: &str = "eth_getTransactionReceipt";
    let (Some(block), Some(block_hash)) = (r.block_number, r.block_hash) else {
        return Ok(None);
    };
    if TxHash::from_bytes(r.transaction_hash.0) != tx {
        return Err(malformed(WHAT, "the receipt of another transaction"));
    }
    let succeeded = match r.status {
        Some(s) if s == U64::one() => true,
        Some(s) if s.is_zero() => false,
        other => return Err(malformed(WHAT, format_args!("receipt status {other:?}"))),
    };
    let mut transfers = Vec::new();
    let mut checkout_paid = Vec::new();
    let mut subscription_events = Vec::new();
    for (position, log) in r.logs.iter().enumerate() {
        let Some(index) = log_index(log) else {
            return Err(malformed(
                WHAT,
                format_args!("log {position} has log index {:?}", log.log_index),
            ));
        };
        if let Some(t) = decode_transfer(log, index) {
            transfers.push(t);
        } else if let Some(c) = decode_checkout_paid(log, index) {
            checkout_paid.push(c);
        } else if let Some(e) = decode_subscription_event(log, index) {
            subscription_events.push(e);
        }
    }
    Ok(Some(ChainReceipt {
        tx_hash: tx,
        // U64 is a single 64-bit word: `as_u64` cannot overflow.
        block_number: block.as_u64(),
        block_hash: BlockHash::from_bytes(block_hash.0),
        succeeded,
        transfers,
        checkout_paid,
        subscription_events,
    }))
}

/// The hash of the block a node returned for `number`. `Ok(None)`: no such block yet (or a
/// pending one, without number and hash). A block of another height, or a numbered block
/// without its hash (or the reverse), is unknown.
pub(crate) fn block_hash_of(
    block: Option<&Block<H256>>,
    number: u64,
) -> Result<Option<BlockHash>, ChainError> {
    let Some(block) = block else {
        return Ok(None);
    };
    match (block.number, block.hash) {
        (None, None) => Ok(None),
        // U64 is a single 64-bit word: `as_u64` cannot overflow.
        (Some(n), Some(hash)) if n.as_u64() == number => Ok(Some(BlockHash::from_bytes(hash.0))),
        (n, hash) => Err(malformed(
            "eth_getBlockByNumber",
            format_args!("asked for block {number}, got number {n:?} with hash {hash:?}"),
        )),
    }
}

/// The timestamp of the block asked for by hash; a block that answers with another hash, or
/// a timestamp no clock can hold, is unknown rather than a time.
pub(crate) fn block_time_of(
    block: Option<&Block<H256>>,
    asked: BlockHash,
) -> Result<Option<Timestamp>, ChainError> {
    let Some(block) = block else {
        return Ok(None);
    };
    if block.hash.map(|h| h.0) != Some(*asked.as_bytes()) {
        return Err(malformed(
            "eth_getBlockByHash",
            format_args!("asked for block {asked}, got {:?}", block.hash),
        ));
    }
    i64::try_from(block.timestamp)
        .ok()
        .and_then(Timestamp::from_unix_seconds)
        .map(Some)
        .ok_or_else(|| {
            malformed(
                "eth_getBlockByHash",
                format_args!("a timestamp out of range: {}", block.timestamp),
            )
        })
}

/// The answer of `SubscriptionManager.plans(plan_id)`: (merchant, token, recipient,
/// amount, interval). Decoded here rather than by abigen so that an `interval` beyond
/// uint64 is refused instead of truncated; undecodable output is unknown.
pub(crate) fn plan_of(plan_id: u128, output: &[u8]) -> Result<Option<OnChainPlan>, ChainError> {
    use ethers::abi::{ParamType, Token};
    let types = [
        ParamType::Address,
        ParamType::Address,
        ParamType::Address,
        ParamType::Uint(256),
        ParamType::Uint(256),
    ];
    let tokens = ethers::abi::decode(&types, output).map_err(|e| malformed("plans", e))?;
    let [Token::Address(creator), Token::Address(token), Token::Address(recipient), Token::Uint(amount), Token::Uint(interval)] =
        tokens.as_slice()
    else {
        return Err(malformed("plans", "unexpected output types"));
    };
    // An unset mapping entry reads as zeros: no such plan.
    if creator.is_zero() {
        return Ok(None);
    }
    let interval_seconds = u64::try_from(*interval)
        .map_err(|_| malformed("plans", format_args!("interval {interval} beyond uint64")))?;
    Ok(Some(OnChainPlan {
        plan_id,
        creator: from_h160(*creator),
        token: from_h160(*token),
        recipient: from_h160(*recipient),
        // A real chain fact, not a malformed answer: an amount beyond u128 saturates, and
        // `accept_plan` refuses anything beyond u64 base units, so this is a refusal.
        amount: u128_of(*amount).unwrap_or(u128::MAX),
        interval_seconds,
    }))
}

#[cfg(test)]
mod tests {
    use ethers::abi::Token;

    use super::*;

    const TX: [u8; 32] = [0x11; 32];

    fn word(v: U256) -> [u8; 32] {
        let mut w = [0; 32];
        v.to_big_endian(&mut w);
        w
    }

    fn transfer_log(log_index: Option<U256>) -> Log {
        Log {
            address: H160::repeat_byte(0xaa),
            topics: vec![
                H256(TRANSFER_TOPIC),
                H256::from(H160::repeat_byte(0x01)),
                H256::from(H160::repeat_byte(0x02)),
            ],
            data: Bytes::from(word(U256::from(1_500_000u64)).to_vec()),
            log_index,
            ..Default::default()
        }
    }

    fn mined(logs: Vec<Log>) -> TransactionReceipt {
        TransactionReceipt {
            transaction_hash: H256(TX),
            block_number: Some(U64::from(42)),
            block_hash: Some(H256::repeat_byte(0x22)),
            status: Some(U64::one()),
            logs,
            ..Default::default()
        }
    }

    fn facts(r: &TransactionReceipt) -> Result<Option<ChainReceipt>, ChainError> {
        receipt_facts(TxHash::from_bytes(TX), r)
    }

    fn is_unknown<T: std::fmt::Debug>(r: Result<T, ChainError>) -> bool {
        matches!(r, Err(ChainError::Unavailable(_)))
    }

    #[test]
    fn a_normal_receipt_decodes() {
        let r = mined(vec![transfer_log(Some(U256::from(7)))]);
        let got = facts(&r).unwrap().unwrap();
        assert_eq!(got.tx_hash, TxHash::from_bytes(TX));
        assert_eq!(got.block_number, 42);
        assert_eq!(got.block_hash, BlockHash::from_bytes([0x22; 32]));
        assert!(got.succeeded);
        assert_eq!(
            got.transfers,
            vec![TokenTransfer {
                token: Address::from_bytes([0xaa; 20]),
                from: Address::from_bytes([0x01; 20]),
                to: Address::from_bytes([0x02; 20]),
                value: 1_500_000,
                log_index: 7,
            }]
        );
        // The largest index that fits is still a fact.
        let r = mined(vec![transfer_log(Some(U256::from(u64::MAX)))]);
        assert_eq!(facts(&r).unwrap().unwrap().transfers[0].log_index, u64::MAX);
    }

    #[test]
    fn a_log_index_of_2_pow_64_is_unknown_not_a_panic() {
        let r = mined(vec![transfer_log(Some(U256::from(u64::MAX) + 1))]);
        assert!(is_unknown(facts(&r)));
        // Also when the offending log is not one the adapter decodes.
        let other = Log {
            log_index: Some(U256::MAX),
            ..Default::default()
        };
        let r = mined(vec![transfer_log(Some(U256::from(1))), other]);
        assert!(is_unknown(facts(&r)));
    }

    #[test]
    fn a_missing_log_index_is_unknown_not_zero() {
        let r = mined(vec![transfer_log(None)]);
        assert!(is_unknown(facts(&r)));
    }

    #[test]
    fn receipt_status_must_be_0_or_1() {
        let mut r = mined(vec![]);
        r.status = Some(U64::zero());
        assert!(!facts(&r).unwrap().unwrap().succeeded);
        r.status = None;
        assert!(is_unknown(facts(&r)));
        r.status = Some(U64::from(2));
        assert!(is_unknown(facts(&r)));
    }

    #[test]
    fn a_receipt_without_its_block_is_none_and_another_txs_is_unknown() {
        let mut r = mined(vec![transfer_log(None)]);
        r.block_number = None;
        assert_eq!(facts(&r), Ok(None));
        let mut r = mined(vec![]);
        r.block_hash = None;
        assert_eq!(facts(&r), Ok(None));
        let mut r = mined(vec![]);
        r.transaction_hash = H256::repeat_byte(0x99);
        assert!(is_unknown(facts(&r)));
    }

    #[test]
    fn odd_transfer_shapes_are_not_transfers() {
        let mut four_topics = transfer_log(Some(U256::one()));
        four_topics.topics.push(H256::zero());
        let mut long_data = transfer_log(Some(U256::one()));
        long_data.data = Bytes::from(vec![0; 64]);
        let mut no_topics = transfer_log(Some(U256::one()));
        no_topics.topics.clear();
        let mut huge = transfer_log(Some(U256::one()));
        huge.data = Bytes::from(word(U256::MAX).to_vec());
        for log in [four_topics, long_data, no_topics, huge] {
            assert_eq!(decode_transfer(&log, 1), None);
        }
    }

    fn charged_log(next_charge_at: U256) -> Log {
        Log {
            address: H160::repeat_byte(0xbb),
            topics: vec![
                ChargedFilter::signature(),
                H256(word(U256::from(5))),
                H256(word(U256::from(9))),
                H256::from(H160::repeat_byte(0x03)),
            ],
            data: Bytes::from(ethers::abi::encode(&[
                Token::Uint(U256::from(990)),
                Token::Uint(U256::from(10)),
                Token::Uint(next_charge_at),
            ])),
            log_index: Some(U256::from(3)),
            ..Default::default()
        }
    }

    #[test]
    fn a_charged_due_date_beyond_u64_is_not_truncated() {
        let ok = decode_subscription_event(&charged_log(U256::from(1_700_000_000u64)), 3);
        assert_eq!(
            ok.map(|l| l.event),
            Some(SubscriptionEvent::Charged {
                subscription_id: 5,
                plan_id: 9,
                subscriber: Address::from_bytes([0x03; 20]),
                net_amount: 990,
                fee_amount: 10,
                next_charge_at: 1_700_000_000,
            })
        );
        let dirty = charged_log((U256::one() << 64) + U256::from(60));
        assert_eq!(decode_subscription_event(&dirty, 3), None);
    }

    fn located(tx: u8, block: Option<u64>) -> Log {
        Log {
            transaction_hash: Some(H256::repeat_byte(tx)),
            block_number: block.map(U64::from),
            block_hash: Some(H256::repeat_byte(0x22)),
            log_index: Some(U256::zero()),
            ..Default::default()
        }
    }

    #[test]
    fn logged_txs_dedupe_and_refuse_unplaced_or_out_of_range_logs() {
        let logs = [
            located(1, Some(10)),
            located(1, Some(10)),
            located(2, Some(12)),
        ];
        let got = logged_txs_of(&logs, 10, 12).unwrap();
        assert_eq!(
            got.iter().map(|t| t.block_number).collect::<Vec<_>>(),
            [10, 12]
        );
        assert!(is_unknown(logged_txs_of(&[located(1, None)], 10, 12)));
        let mut no_tx = located(1, Some(10));
        no_tx.transaction_hash = None;
        assert!(is_unknown(logged_txs_of(&[no_tx], 10, 12)));
        let mut no_hash = located(1, Some(10));
        no_hash.block_hash = None;
        assert!(is_unknown(logged_txs_of(&[no_hash], 10, 12)));
        assert!(is_unknown(logged_txs_of(&[located(1, Some(13))], 10, 12)));
        assert!(is_unknown(logged_txs_of(&[located(1, Some(9))], 10, 12)));
    }

    #[test]
    fn transfer_logs_name_their_recipient_and_skip_other_layouts() {
        let placed = |mut log: Log, tx: u8| {
            let at = located(tx, Some(11));
            log.transaction_hash = at.transaction_hash;
            log.block_number = at.block_number;
            log.block_hash = at.block_hash;
            log
        };
        // Two transfers in one transaction: two entries (each recipient is looked up).
        let mut odd = placed(transfer_log(None), 3);
        odd.topics.truncate(1);
        let logs = [
            placed(transfer_log(None), 1),
            placed(transfer_log(None), 1),
            odd,
        ];
        let got = transfer_logs_of(&logs, 10, 12).unwrap();
        assert_eq!(got.len(), 2);
        assert!(got
            .iter()
            .all(|t| t.to == Address::from_bytes([0x02; 20]) && t.tx.block_number == 11));
        assert!(is_unknown(transfer_logs_of(
            &[placed(transfer_log(None), 1)],
            12,
            12
        )));
    }

    #[test]
    fn block_times_are_of_the_block_asked() {
        let asked = BlockHash::from_bytes([0x22; 32]);
        let block = |hash: Option<u8>, time: u64| Block::<H256> {
            hash: hash.map(H256::repeat_byte),
            timestamp: U256::from(time),
            ..Default::default()
        };
        assert_eq!(block_time_of(None, asked), Ok(None));
        assert_eq!(
            block_time_of(Some(&block(Some(0x22), 1_700_000_000)), asked),
            Ok(Timestamp::from_unix_seconds(1_700_000_000))
        );
        assert!(is_unknown(block_time_of(
            Some(&block(Some(0x23), 1_700_000_000)),
            asked
        )));
        assert!(is_unknown(block_time_of(Some(&block(None, 1)), asked)));
        assert!(is_unknown(block_time_of(
            Some(&block(Some(0x22), u64::MAX)),
            asked
        )));
    }

    #[test]
    fn block_hashes_are_for_the_height_asked() {
        let block = |number: Option<u64>, hash: Option<u8>| Block::<H256> {
            number: number.map(U64::from),
            hash: hash.map(H256::repeat_byte),
            ..Default::default()
        };
        assert_eq!(block_hash_of(None, 5), Ok(None));
        assert_eq!(block_hash_of(Some(&block(None, None)), 5), Ok(None));
        assert_eq!(
            block_hash_of(Some(&block(Some(5), Some(0x22))), 5),
            Ok(Some(BlockHash::from_bytes([0x22; 32])))
        );
        assert!(is_unknown(block_hash_of(
            Some(&block(Some(6), Some(0x22))),
            5
        )));
        assert!(is_unknown(block_hash_of(Some(&block(Some(5), None)), 5)));
        assert!(is_unknown(block_hash_of(Some(&block(None, Some(0x22))), 5)));
    }

    fn plan_output(creator: u8, amount: U256, interval: U256) -> Vec<u8> {
        ethers::abi::encode(&[
            Token::Address(H160::repeat_byte(creator)),
            Token::Address(H160::repeat_byte(0x0c)),
            Token::Address(H160::repeat_byte(0x0d)),
            Token::Uint(amount),
            Token::Uint(interval),
        ])
    }

    #[test]
    fn plans_decode_strictly() {
        let plan = plan_of(
            4,
            &plan_output(0x0a, U256::from(9_990_000), U256::from(2_592_000)),
        );
        assert_eq!(
            plan,
            Ok(Some(OnChainPlan {
                plan_id: 4,
                creator: Address::from_bytes([0x0a; 20]),
                token: Address::from_bytes([0x0c; 20]),
                recipient: Address::from_bytes([0x0d; 20]),
                amount: 9_990_000,
                interval_seconds: 2_592_000,
            }))
        );
        assert_eq!(
            plan_of(4, &plan_output(0, U256::zero(), U256::zero())),
            Ok(None)
        );
        let huge = plan_of(4, &plan_output(0x0a, U256::MAX, U256::from(60)));
        assert_eq!(huge.unwrap().unwrap().amount, u128::MAX);
        let output = plan_output(0x0a, U256::from(1), U256::one() << 64);
        assert!(is_unknown(plan_of(4, &output)));
        assert!(is_unknown(plan_of(4, &[])));
        assert!(is_unknown(plan_of(4, &[0; 100])));
    }

    #[test]
    fn malformed_answers_are_redacted() {
        let e = malformed("x", "see https://rpc.example/v2/KEY");
        assert_eq!(
            e,
            ChainError::Unavailable("x: malformed answer: see https://rpc.example/…".into())
        );
    }
}
