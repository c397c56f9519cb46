//! A create's verified wallets, answered from memory while they have not changed (D28).
//!
//! Every write of a wallet moves its merchant's `wallets_version` (a trigger, migration
//! 000037), and the key check returns that count with the merchant's terms. An atomic
//! unit notes the count its key check saw; `WalletRepository::verified` on that unit
//! answers from this process's last read of the same merchant under the same count, and
//! otherwise reads and remembers. A read made after the key check sees the wallets at
//! least as new as the count it saw, so what is remembered under a count is never older
//! than it: a create decides on the wallets as of its own key check, as it did when it
//! read them right after it. Stores not bound to a checked request always read.
//!
//! Measured with `cargo xtask bench api` on 2 shared cores (docs/operations.md, "Sizing"):
//! the read was a statement and a round trip of its own between the key check and the
//! insert. Before and after on one machine (2026-12-08): creates 3,467 → 4,582/s (63 → 87 %
//! of pgbench's write rate), per create the api 185 → 138 µs and PostgreSQL 352 → 284 µs,
//! p99 flat out 22.9 → 13.2 ms, and held at 40 % of pgbench 65.1 → 5.0 ms.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use stablepay_domain::{MerchantId, Wallet};
use uuid::Uuid;

/// How many merchants' wallets a process remembers before it forgets them all (a bound,
/// not an eviction policy: a merchant forgotten is read again at its next create).
const MAX_MERCHANTS: usize = 10_000;

/// The wallets count an atomic unit's key check saw, for its merchant, until the unit
/// writes a wallet itself (its own write moves the count only inside its transaction).
#[derive(Default)]
pub(crate) struct WalletsSeen(Mutex<Seen>);

#[derive(Default, Clone, Copy)]
enum Seen {
    #[default]
    Unchecked,
    Checked {
        merchant: Uuid,
        version: i64,
    },
    WroteWallets,
}

impl WalletsSeen {
    /// What the unit's key check saw (kept only as the unit's first word on it).
    pub(crate) fn checked(&self, merchant: Uuid, version: i64) {
        let mut seen = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if let Seen::Unchecked = *seen {
            *seen = Seen::Checked { merchant, version };
        }
    }

    /// The unit wrote a wallet: from now on it reads them.
    pub(crate) fn wrote_wallets(&self) {
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = Seen::WroteWallets;
    }

    /// The count the unit's key check saw for `merchant`, if it checked that merchant's
    /// key and wrote no wallet since.
    pub(crate) fn version_for(&self, merchant: MerchantId) -> Option<i64> {
        match *self.0.lock().unwrap_or_else(|p| p.into_inner()) {
            Seen::Checked {
                merchant: m,
                version,
            } if m == merchant.uuid() => Some(version),
            _ => None,
        }
    }
}

/// This process's last read of each merchant's verified wallets, under the count it was
/// read at or after.
#[derive(Default)]
pub(crate) struct VerifiedWallets {
    read: Mutex<HashMap<Uuid, ReadAt>>,
}

/// A merchant's verified wallets and the count they were read at or after.
type ReadAt = (i64, Arc<[Wallet]>);

impl VerifiedWallets {
    /// The wallets remembered for `merchant` under `version`, if those are.
    pub(crate) fn get(&self, merchant: MerchantId, version: i64) -> Option<Vec<Wallet>> {
        let read = self.read.lock().unwrap_or_else(|p| p.into_inner());
        match read.get(&merchant.uuid()) {
            Some((at, wallets)) if *at == version => Some(wallets.to_vec()),
            _ => None,
        }
    }

    /// Remembers `wallets`, read after a key check that saw `version`.
    pub(crate) fn put(&self, merchant: MerchantId, version: i64, wallets: &[Wallet]) {
        let mut read = self.read.lock().unwrap_or_else(|p| p.into_inner());
        // A slow request's older count never replaces a newer one.
        if read
            .get(&merchant.uuid())
            .is_some_and(|(at, _)| *at > version)
        {
            return;
        }
        if read.len() >= MAX_MERCHANTS && !read.contains_key(&merchant.uuid()) {
            read.clear();
        }
        read.insert(merchant.uuid(), (version, wallets.into()));
    }
}
