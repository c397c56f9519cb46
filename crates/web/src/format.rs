//! How values read on a page: money with its currency, times in UTC, short addresses,
//! block-explorer links.

use stablepay_domain::{
    render_micros, Address, Amount, ChainId, Currency, Fiat, Timestamp, TxHash,
};

/// "24.90 USDC": at least two decimals, never floats.
pub fn money(micros: u64, currency: Currency) -> String {
    in_unit(micros, currency.as_str())
}

/// "24.90 USD": micro-units of tokens pegged to one money, added up and shown in it.
pub fn fiat_money(micros: u64, fiat: Fiat) -> String {
    in_unit(micros, fiat.as_str())
}

fn in_unit(micros: u64, unit: &str) -> String {
    let plain = render_micros(micros);
    let shown = match plain.split_once('.') {
        None => format!("{plain}.00"),
        Some((_, frac)) if frac.len() == 1 => format!("{plain}0"),
        Some(_) => plain,
    };
    format!("{shown} {unit}")
}

pub fn amount(a: Amount, currency: Currency) -> String {
    money(a.micros(), currency)
}

/// "2026-11-23 06:10:42 UTC".
/// "-5.00 USDC" for money out, as `money` for money in.
pub fn signed_money(micros: i64, currency: Currency) -> String {
    let shown = money(micros.unsigned_abs(), currency);
    if micros < 0 {
        format!("-{shown}")
    } else {
        shown
    }
}

pub fn time(t: Timestamp) -> String {
    t.as_datetime().format("%Y-%m-%d %H:%M:%S UTC").to_string()
}

pub fn opt_time(t: Option<Timestamp>) -> String {
    t.map(time).unwrap_or_else(|| "—".to_owned())
}

/// "0x1234…cdef".
pub fn short(address: &str) -> String {
    if address.len() > 12 {
        format!("{}…{}", &address[..6], &address[address.len() - 4..])
    } else {
        address.to_owned()
    }
}

fn explorer(chain: ChainId) -> &'static str {
    if chain.mode().is_live() {
        "https://basescan.org"
    } else {
        "https://sepolia.basescan.org"
    }
}

pub fn tx_link(chain: ChainId, tx: &TxHash) -> String {
    format!("{}/tx/{tx}", explorer(chain))
}

pub fn address_link(chain: ChainId, a: &Address) -> String {
    format!("{}/address/{a}", explorer(chain))
}

/// A price in a currency and its rate, as people read it: "20.00 EUR · 1 EUR = 1.0825 USD",
/// or "20.00 USD · 1:1 in USDC" for a peg (D34).
pub fn price_and_rate(p: &stablepay_domain::QuotedPrice, token: Currency) -> String {
    let price = fiat_money(p.price.amount.micros(), p.price.fiat);
    match p.quote.pair {
        stablepay_domain::FeedPair::EurUsd => format!(
            "{price} · 1 EUR = {} USD",
            stablepay_domain::representation::render_e8(p.quote.rate_e8)
        ),
        // A peg: 1:1, checked on the token's own feed.
        _ => format!("{price} · 1:1 in {token}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn money_reads_like_money() {
        assert_eq!(money(24_900_000, Currency::Usdc), "24.90 USDC");
        assert_eq!(money(10_000_000, Currency::Usdt), "10.00 USDT");
        assert_eq!(money(102_500, Currency::Usdc), "0.1025 USDC");
        assert_eq!(money(0, Currency::Usdc), "0.00 USDC");
        assert_eq!(money(1_500_000, Currency::Eurc), "1.50 EURC");
        assert_eq!(fiat_money(3_000_000, Fiat::Eur), "3.00 EUR");
        assert_eq!(short("0x1234567890abcdef1234"), "0x1234…1234");
    }
}
