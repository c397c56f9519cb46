use chrono::{DateTime, Utc};
use stablepay_domain::ports::StoreError;
use stablepay_domain::{Address, Amount, BlockHash, ChainId, Currency, Timestamp, TxHash};

use crate::error::corrupt;

pub(crate) fn ts(at: DateTime<Utc>) -> Timestamp {
    Timestamp::new(at)
}

pub(crate) fn ts_opt(at: Option<DateTime<Utc>>) -> Option<Timestamp> {
    at.map(Timestamp::new)
}

pub(crate) fn address(s: &str) -> Result<Address, StoreError> {
    Address::parse(s).map_err(|_| corrupt("address", s))
}

pub(crate) fn address_opt(s: Option<&str>) -> Result<Option<Address>, StoreError> {
    s.map(address).transpose()
}

pub(crate) fn tx_hash(s: &str) -> Result<TxHash, StoreError> {
    TxHash::parse(s).map_err(|_| corrupt("tx_hash", s))
}

pub(crate) fn block_hash(s: &str) -> Result<BlockHash, StoreError> {
    BlockHash::parse(s).map_err(|_| corrupt("block_hash", s))
}

pub(crate) fn tx_hash_opt(s: Option<&str>) -> Result<Option<TxHash>, StoreError> {
    s.map(tx_hash).transpose()
}

pub(crate) fn amount(micros: i64) -> Result<Amount, StoreError> {
    u64::try_from(micros)
        .ok()
        .and_then(|m| Amount::from_micros(m).ok())
        .ok_or_else(|| corrupt("amount", micros))
}

pub(crate) fn micros(v: i64) -> Result<u64, StoreError> {
    u64::try_from(v).map_err(|_| corrupt("micros", v))
}

pub(crate) fn chain(id: i32) -> Result<ChainId, StoreError> {
    u64::try_from(id)
        .ok()
        .and_then(ChainId::from_id)
        .ok_or_else(|| corrupt("chain_id", id))
}

pub(crate) fn currency(s: &str) -> Result<Currency, StoreError> {
    Currency::parse(s).ok_or_else(|| corrupt("currency", s))
}

pub(crate) fn parse_enum<T>(
    what: &str,
    s: &str,
    parse: impl Fn(&str) -> Option<T>,
) -> Result<T, StoreError> {
    parse(s).ok_or_else(|| corrupt(what, s))
}

pub(crate) fn to_i64(v: u64) -> i64 {
    // Every u64 we store (micro-units ≤ 1e15, block numbers, seconds) fits in i64.
    i64::try_from(v).unwrap_or(i64::MAX)
}
