//! The merchant's decisions on payments held for review (D33): the review, the completed
//! session and its events (approve) or the refund request (return), and the audit entries,
//! in one transaction that only a still-pending review takes.

use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::{AsyncConnection, RunQueryDsl};
use stablepay_domain::ports::{PaymentReviews, ReviewDecided, StoreError};

use crate::repos::audit::record as record_audit;
use crate::repos::outbox::{write_event, OutboxError};
use crate::repos::settlement::complete_session;
use crate::rows::RefundRequestRow;
use crate::schema::{checkout_sessions as cs, payments as p, refund_requests as rr};
use crate::PgStore;

#[async_trait]
impl PaymentReviews for PgStore {
    async fn decide_review(&self, decided: &ReviewDecided) -> Result<bool, StoreError> {
        let payment = &decided.payment;
        let Some(review) = &payment.review else {
            return Err(StoreError::Internal(
                "a review decision without its review".into(),
            ));
        };
        let mut conn = self.conn().await?;
        conn.transaction(async |conn| {
            // The session before the payment, as settlement takes them: the payments
            // trigger that keeps `awaiting_review` writes the session after this update.
            if let Some(session) = payment.checkout_session {
                cs::table
                    .filter(cs::id.eq(session.uuid()))
                    .select(cs::id)
                    .for_update()
                    .first::<uuid::Uuid>(conn)
                    .await?;
            }
            let n = diesel::update(
                p::table
                    .filter(p::id.eq(payment.id.uuid()))
                    .filter(p::merchant_id.eq(payment.merchant_id.uuid()))
                    .filter(p::livemode.eq(payment.mode.is_live()))
                    .filter(p::review_status.eq("pending")),
            )
            .set((
                p::review_status.eq(review.status.as_str()),
                p::reviewed_at.eq(review.decided_at.map(|t| t.as_datetime())),
            ))
            .execute(conn)
            .await?;
            if n == 0 {
                return Ok::<_, OutboxError>(false);
            }
            if let Some(done) = &decided.completed_session {
                // Another payment may have completed it meanwhile: then this one only adds.
                let status: String = cs::table
                    .filter(cs::id.eq(done.id.uuid()))
                    .select(cs::status)
                    .first(conn)
                    .await?;
                if status != "completed" {
                    complete_session(conn, done).await?;
                }
            }
            if let Some(request) = &decided.refund_request {
                diesel::insert_into(rr::table)
                    .values(RefundRequestRow::from(request))
                    .execute(conn)
                    .await?;
            }
            for audit in &decided.audits {
                record_audit(conn, audit).await?;
            }
            for event in &decided.events {
                write_event(conn, event).await?;
            }
            Ok(true)
        })
        .await
        .map_err(StoreError::from)
    }
}
