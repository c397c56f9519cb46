//! One connection, and where asked one transaction, per API request (`RequestScope`).

use diesel_async::{AnsiTransactionManager, AsyncPgConnection, TransactionManager};
use futures_util::future::LocalBoxFuture;
use stablepay_domain::ports::{RequestScope, ScopeEnd, StoreError};

use crate::error::map_diesel_error;
use crate::pool::PINNED;
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

    fn transaction<'a>(
        &'a self,
        work: LocalBoxFuture<'a, ScopeEnd>,
    ) -> LocalBoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let pin = match self.current_pin() {
                Some(pin) => pin,
                None => self.pin(self.pooled().await?),
            };
            let shared = pin.conn.clone();
            {
                let mut conn = shared.lock().await;
                let conn: &mut AsyncPgConnection = &mut conn;
                <Tm as TransactionManager<AsyncPgConnection>>::begin_transaction(conn)
                    .await
                    .map_err(map_diesel_error)?;
            }
            // Dropped from here on, the connection returns to the pool still inside its
            // transaction; the pool's recycle check sees that and discards it.
            let end = PINNED.scope(pin, work).await;
            let mut conn = shared.lock().await;
            let conn: &mut AsyncPgConnection = &mut conn;
            match end {
                ScopeEnd::Commit => {
                    <Tm as TransactionManager<AsyncPgConnection>>::commit_transaction(conn).await
                }
                ScopeEnd::Rollback => {
                    <Tm as TransactionManager<AsyncPgConnection>>::rollback_transaction(conn).await
                }
            }
            .map_err(|e| match map_diesel_error(e) {
                StoreError::Internal(detail) => StoreError::Unavailable(detail),
                other => other,
            })
        })
    }
}
