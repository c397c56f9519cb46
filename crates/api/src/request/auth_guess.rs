//! What each API key authenticated as last time in this process, used only to start a
//! read before its authentication answers (the key's check then travels inside the read's
//! statement). A request that leases rate budget (`KeyedRequest::guess`) is authenticated
//! first, on its own, whatever it guessed. Writes guess nothing: their key's check and
//! their `Idempotency-Key`'s look are one statement, before any transaction.
//!
//! A guess never answers a request: the key is checked against the database on every
//! request (for a read of the merchant's rows, inside the read's own statement), and a
//! read is thrown away when that check fails or disagrees. Revocation therefore still
//! takes effect on the very next request.

use std::collections::HashMap;
use std::sync::Mutex;

use stablepay_domain::AuthContext;

/// Keys remembered before the map starts over (a bound, not an eviction policy: a
/// forgotten key only loses one pipelined round trip on its next request).
const CAPACITY: usize = 10_000;

#[derive(Default)]
pub struct AuthGuesses {
    known: Mutex<HashMap<[u8; 32], AuthContext>>,
}

impl AuthGuesses {
    pub fn guess(&self, key_sha256: &[u8; 32]) -> Option<AuthContext> {
        self.lock().get(key_sha256).cloned()
    }

    /// Records what the database just said about the key (`None`: not a valid key).
    pub fn learn(&self, key_sha256: [u8; 32], answer: Option<&AuthContext>) {
        let mut known = self.lock();
        match answer {
            Some(ctx) if known.get(&key_sha256) != Some(ctx) => {
                if known.len() >= CAPACITY {
                    known.clear();
                }
                known.insert(key_sha256, ctx.clone());
            }
            Some(_) => {}
            None => {
                known.remove(&key_sha256);
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<[u8; 32], AuthContext>> {
        self.known.lock().unwrap_or_else(|p| p.into_inner())
    }
}
