//! One connection, and where asked one transaction, per API request (`RequestScope`).

use diesel::connection::{TransactionDepthChange, TransactionManagerStatus};
use diesel_async::{
    AnsiTransactionManager, AsyncPgConnection, SimpleAsyncConnection, TransactionManager,
};
use futures_util::future::LocalBoxFuture;
use std::sync::Arc;

use stablepay_domain::ports::{RequestScope, ScopeEnd, StoreError, Vouch};
use stablepay_domain::AuthContext;

use crate::error::map_diesel_error;
use crate::pool::PINNED;
use crate::vouch::Vouching;
use crate::PgStore;

type Tm = AnsiTransactionManager;

impl RequestScope for PgStore {
    fn pinned<'a>(
        &'a self,
        work: LocalBoxFuture<'a, ()>,
    ) -> LocalBoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let pin = self.pin(self.pooled().await?);
            PINNED.scope(pin, work).await;
            Ok(())
        })
    }

    fn joined<'a>(
        &'a self,
        work: LocalBoxFuture<'a, ()>,
    ) -> LocalBoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let pin = self.joinable().await?;
            PINNED.scope(pin, work).await;
            Ok(())
        })
    }

    fn vouched<'a>(
        &'a self,
        key_sha256: [u8; 32],
        guess: &'a AuthContext,
        work: LocalBoxFuture<'a, ()>,
    ) -> LocalBoxFuture<'a, Result<Vouch, StoreError>> {
        Box::pin(async move {
            let pin = match self.current_pin() {
                Some(pin) => pin,
                None => self.joinable().await?,
            };
            let Some(vouching) = Vouching::new(key_sha256, guess).map(Arc::new) else {
                PINNED.scope(pin, work).await;
                return Ok(Vouch::Unconfirmed);
            };
            PINNED.scope(pin.vouched(vouching.clone()), work).await;
            if !vouching.confirmed() {
                return Ok(Vouch::Unconfirmed);
            }
            // What authentication would have recorded (at most once a minute per key).
            self.note_key_use(vouching.key_id, None);
            Ok(Vouch::Confirmed)
        })
    }

    fn transaction<'a>(
        &'a self,
        work: LocalBoxFuture<'a, ScopeEnd>,
    ) -> LocalBoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            // A connection other requests' reads share would carry them into this
            // transaction: it gets one of its own.
            let pin = match self.current_pin().filter(|pin| !pin.joined) {
                Some(pin) => pin,
                None => self.pin(self.pooled().await?),
            };
            let pin = pin.in_transaction();
            let shared = pin.conn.clone();
            // diesel learns of the transaction first (so a nested `transaction()` makes a
            // savepoint and a dropped request discards the connection), then BEGIN is
            // sent without waiting: it travels with the work's first statement.
            {
                let mut conn = shared.write().await;
                let conn: &mut AsyncPgConnection = &mut conn;
                open_transaction_depth(conn)?;
            }
            let begin = async {
                let conn = shared.clone().read_owned().await;
                let conn: &AsyncPgConnection = &conn;
                SimpleAsyncConnection::batch_execute(&mut &*conn, "BEGIN").await
            };
            let (begun, end) = futures_util::future::join(begin, PINNED.scope(pin, work)).await;
            let mut conn = shared.write().await;
            let conn: &mut AsyncPgConnection = &mut conn;
            if begun.is_err() {
                // BEGIN fails only with its connection, whose later statements then fail
                // too; should one have run anyway, it ran outside any transaction. Either
                // way the connection is not reused.
                <Tm as TransactionManager<AsyncPgConnection>>::transaction_manager_status_mut(conn)
                    .set_in_error();
            }
            let end = if begun.is_ok() {
                end
            } else {
                ScopeEnd::Rollback
            };
            let ended = match end {
                ScopeEnd::Commit => {
                    <Tm as TransactionManager<AsyncPgConnection>>::commit_transaction(conn).await
                }
                ScopeEnd::Rollback => {
                    <Tm as TransactionManager<AsyncPgConnection>>::rollback_transaction(conn).await
                }
            };
            begun.and(ended).map_err(|e| match map_diesel_error(e) {
                StoreError::Internal(detail) => StoreError::Unavailable(detail),
                other => other,
            })
        })
    }
}

/// Records an open top-level transaction in diesel's bookkeeping without a round trip.
/// Errors: `Internal` when the connection is already in a transaction (a request scope
/// never nests) or its manager is broken.
fn open_transaction_depth(conn: &mut AsyncPgConnection) -> Result<(), StoreError> {
    let status: &mut TransactionManagerStatus =
        <Tm as TransactionManager<AsyncPgConnection>>::transaction_manager_status_mut(conn);
    let state = status.transaction_state().map_err(map_diesel_error)?;
    if state.transaction_depth().is_some() {
        return Err(StoreError::Internal(
            "a request transaction was opened inside another".into(),
        ));
    }
    state
        .change_transaction_depth(TransactionDepthChange::IncreaseDepth)
        .map_err(map_diesel_error)
}
