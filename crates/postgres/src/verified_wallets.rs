//! A create's verified wallets, answered from memory while they have not changed (D28).
//!
//! Every write of a wallet draws its merchant a new `wallets_version` (a random value drawn by
//! triggers, migration 000037), and the key check returns it with the merchant's terms. An
//! atomic unit notes the version its key check saw; `WalletRepository::verified` on that unit
//! answers from this process's last read of the same merchant under the same version, and
//! otherwise reads and remembers. A read made after the key check sees the wallets at least
//! as new as the version it saw, so what is remembered under a version is never older than
//! it: a create decides on the wallets as they were at its own key check or later. Stores
//! not bound to a checked atomic unit always read, and so does a unit once it writes a
//! wallet. A process reads each merchant's wallets once per change, on first use, and
//! after its memory is cleared.
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

use crate::PgStore;

/// How many merchants' wallets a process remembers before it forgets them all (a bound,
/// not an eviction policy: a merchant forgotten is read again at its next create).
const MAX_MERCHANTS: usize = 10_000;

/// The wallets version an atomic unit's key check saw, for its merchant, until the unit
/// writes a wallet itself (its own write draws a new one only inside its transaction).
#[derive(Default)]
pub(crate) struct WalletsSeen(Mutex<Seen>);

#[derive(Default, Clone, Copy)]
enum Seen {
    #[default]
    Unchecked,
    Checked {
        merchant: Uuid,
        version: Uuid,
    },
    WroteWallets,
}

impl WalletsSeen {
    /// What the unit's key check saw (kept only as the unit's first word on it).
    pub(crate) fn checked(&self, merchant: Uuid, version: Uuid) {
        let mut seen = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if let Seen::Unchecked = *seen {
            *seen = Seen::Checked { merchant, version };
        }
    }

    /// The unit wrote a wallet: from now on it reads them.
    pub(crate) fn wrote_wallets(&self) {
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = Seen::WroteWallets;
    }

    /// The version the unit's key check saw for `merchant`, if it checked that merchant's
    /// key and wrote no wallet since.
    pub(crate) fn version_for(&self, merchant: MerchantId) -> Option<Uuid> {
        match *self.0.lock().unwrap_or_else(|p| p.into_inner()) {
            Seen::Checked {
                merchant: m,
                version,
            } if m == merchant.uuid() => Some(version),
            _ => None,
        }
    }
}

/// This process's last read of each merchant's verified wallets, under the version it was
/// read at or after.
#[derive(Default)]
pub(crate) struct VerifiedWallets {
    read: Mutex<HashMap<Uuid, ReadAt>>,
}

/// A merchant's verified wallets and the version they were read at or after.
type ReadAt = (Uuid, Arc<[Wallet]>);

impl VerifiedWallets {
    /// The wallets remembered for `merchant` under `version`, if those are.
    pub(crate) fn get(&self, merchant: MerchantId, version: Uuid) -> Option<Vec<Wallet>> {
        let read = self.read.lock().unwrap_or_else(|p| p.into_inner());
        match read.get(&merchant.uuid()) {
            Some((at, wallets)) if *at == version => Some(wallets.to_vec()),
            _ => None,
        }
    }

    /// Remembers `wallets`, read after a key check that saw `version`, in place of whatever
    /// was remembered (versions have no order, and no read is older than its own version).
    pub(crate) fn put(&self, merchant: MerchantId, version: Uuid, wallets: &[Wallet]) {
        let mut read = self.read.lock().unwrap_or_else(|p| p.into_inner());
        if read.len() >= MAX_MERCHANTS && !read.contains_key(&merchant.uuid()) {
            read.clear();
        }
        read.insert(merchant.uuid(), (version, wallets.into()));
    }
}

impl PgStore {
    /// The wallets version this store's atomic unit saw, if it is bound to one.
    pub(crate) fn wallets_seen(&self) -> Option<&WalletsSeen> {
        self.bound.as_ref()?.wallets_seen.as_deref()
    }

    /// Before a write of a wallet: the unit reads verified wallets from then on (its own
    /// write draws their new version only inside its transaction).
    pub(crate) fn note_wallet_write(&self) {
        if let Some(seen) = self.wallets_seen() {
            seen.wrote_wallets();
        }
    }
}
