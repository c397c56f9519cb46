//! An atomic write's transaction sent as one statement (D28,
//! `AtomicUnit::begin_as_one_statement`): a create reads what it needs, inserts one row and
//! records its answer. Its reads take no locks, so under READ COMMITTED they see the same
//! running alone as inside the transaction; its insert's outcome is read by nothing but
//! the commit. So the reads run alone, the insert is held, and the insert and the answer
//! go to PostgreSQL as one statement (`repos::idempotency::WithAnswer`): no `BEGIN`, no
//! `COMMIT`, and one statement fewer.
//!
//! A unit that does more than that (a locking read, a second write, a read after the held
//! write) begins a real transaction at that statement, with the held write in it, and
//! ends like any other: the shape is an optimisation, never a weaker guarantee.
//!
//! A create went from 6 statements in 4 round trips to 3 in 3 (2 in 2 since its wallet read is
//! answered from memory, `verified_wallets`). Measured with `cargo xtask
//! bench api` on 2 shared cores (2026-11-30, docs/operations.md), the same build with the
//! create in the earlier shape: the api 205 → 180 µs per create, PostgreSQL 383 → 395 µs
//! (within the runs' spread), creates 3,175 → 3,236/s.

use std::sync::Arc;

use diesel::pg::Pg;
use diesel::query_builder::QueryFragment;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use stablepay_domain::ports::StoreError;
use tokio::sync::{Mutex, RwLock};

use crate::diesel_internals::{open_transaction_when_free, send_begin, Prepared};
use crate::error::map_diesel_error;
use crate::pool::Pooled;
use crate::PgStore;

/// A write held to be sent with the answer: an insert of new rows, whose outcome only the
/// commit reads.
pub(crate) type HeldWrite = Box<dyn QueryFragment<Pg> + Send + Sync>;

/// Where an atomic unit's transaction stands.
pub(crate) enum Stage {
    /// None asked for (or ended): each statement stands alone.
    Alone,
    /// `BEGIN` was sent.
    Begun,
    /// Asked for as one statement and nothing sent yet; the held write, once there is one.
    OneStatement(Option<HeldWrite>),
}

/// An atomic unit's stage, shared by every statement made through the unit.
pub(crate) type UnitStage = Arc<Mutex<Stage>>;

/// Whether a statement may run before a one-statement unit's transaction.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Statement {
    /// Reads rows and locks none: it may run alone while nothing is held.
    PlainRead,
    /// Anything else (a write, a locking read): it runs in the transaction.
    InTransaction,
}

/// Gets a one-statement unit ready for `statement`: unless it is a plain read with nothing
/// held, the transaction begins here (its `BEGIN`, then the held write), and the unit is
/// `Begun` from then on. Nothing for a unit in any other stage.
/// Errors: `Unavailable` when the `BEGIN` or the held write failed.
pub(crate) async fn before_statement(
    stage: &UnitStage,
    conn: &Arc<RwLock<Pooled>>,
    statement: Statement,
) -> Result<(), StoreError> {
    let mut stage = stage.lock().await;
    let held = match &mut *stage {
        Stage::OneStatement(None) if statement == Statement::PlainRead => return Ok(()),
        Stage::OneStatement(held) => held,
        Stage::Alone | Stage::Begun => return Ok(()),
    };
    // Opened before the held write is taken: should opening fail, the write stays held and
    // the unit's answer, if any, still carries it.
    open_transaction_when_free(conn).await?;
    let held = held.take();
    *stage = Stage::Begun;
    send_begin(conn).await?;
    match held {
        Some(write) => execute_write(&*conn.clone().read_owned().await, write).await,
        None => Ok(()),
    }
}

/// Runs `write` on `conn` (prepared once per connection, `Prepared`).
/// Errors: as any statement's.
pub(crate) async fn execute_write<W>(conn: &AsyncPgConnection, write: W) -> Result<(), StoreError>
where
    W: QueryFragment<Pg> + Send,
{
    Prepared(write)
        .execute(&mut &*conn)
        .await
        .map(|_| ())
        .map_err(map_diesel_error)
}

impl PgStore {
    /// The stage of the atomic unit this store is bound to, if it is.
    pub(crate) fn unit_stage(&self) -> Option<&UnitStage> {
        self.bound.as_ref().and_then(|b| b.stage.as_ref())
    }

    /// Runs `write` (an insert of new rows, whose outcome nothing reads but the commit),
    /// or, in a unit begun as one statement that holds nothing yet, holds it to be sent
    /// with the answer (its failure is then the commit's).
    /// Errors: as any statement's.
    pub(crate) async fn insert_or_hold<W>(&self, write: W) -> Result<(), StoreError>
    where
        W: QueryFragment<Pg> + Send + Sync + 'static,
    {
        if let Some(stage) = self.unit_stage() {
            if let Stage::OneStatement(held @ None) = &mut *stage.lock().await {
                *held = Some(Box::new(write));
                return Ok(());
            }
        }
        execute_write(&*self.shared_conn().await?, write).await
    }
}
