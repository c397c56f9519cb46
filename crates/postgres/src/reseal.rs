//! Re-sealing secrets at rest under the current key: after `STABLEPAY_SECRETS_KEY` is
//! rotated (the old key in `STABLEPAY_SECRETS_KEY_PREVIOUS`), and for rows sealed before
//! ciphertexts carried a key id. The worker runs it in the background; each row is
//! rewritten only if it still holds what was read (a concurrent rotation wins).

use diesel::sql_types::{Bytea, Int4, Int8, Nullable, Uuid as SqlUuid};
use diesel::QueryableByName;
use diesel_async::RunQueryDsl;
use stablepay_domain::ports::StoreError;
use uuid::Uuid;

use crate::cipher::{endpoint_aad, totp_aad, PREFIX_LEN};
use crate::error::map_diesel_error;
use crate::PgStore;

const BATCH: i64 = 100;

/// What one pass did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Resealed {
    pub resealed: u64,
    /// Rows neither key opens (they stay as they are; their deliveries fail visibly).
    pub unreadable: u64,
}

#[derive(QueryableByName)]
struct SealedRow {
    #[diesel(sql_type = SqlUuid)]
    id: Uuid,
    #[diesel(sql_type = Bytea)]
    sealed: Vec<u8>,
    #[diesel(sql_type = Nullable<Bytea>)]
    previous: Option<Vec<u8>>,
}

const ENDPOINTS_SQL: &str = "
SELECT id, secret_ciphertext AS sealed, previous_secret_ciphertext AS previous
FROM webhook_endpoints
WHERE id > $1 AND (substring(secret_ciphertext FROM 1 FOR $3) <> $2
    OR substring(previous_secret_ciphertext FROM 1 FOR $3) <> $2)
ORDER BY id LIMIT $4";

const UPDATE_ENDPOINT_SQL: &str = "
UPDATE webhook_endpoints SET secret_ciphertext = $2, previous_secret_ciphertext = $3
WHERE id = $1 AND secret_ciphertext = $4 AND previous_secret_ciphertext IS NOT DISTINCT FROM $5";

const TOTP_SQL: &str = "
SELECT id, totp_secret AS sealed, NULL::bytea AS previous FROM dashboard_users
WHERE id > $1 AND totp_secret IS NOT NULL AND substring(totp_secret FROM 1 FOR $3) <> $2
ORDER BY id LIMIT $4";

const UPDATE_TOTP_SQL: &str = "
UPDATE dashboard_users SET totp_secret = $2 WHERE id = $1 AND totp_secret = $3";

#[derive(Clone, Copy)]
enum Sealed {
    EndpointSecrets,
    TotpSeeds,
}

impl PgStore {
    /// Rewrites every secret not sealed by the current key (v1, current key id) under the
    /// current key. Errors: storage failures (the next pass continues).
    pub async fn reseal_secrets(&self) -> Result<Resealed, StoreError> {
        let mut report = Resealed::default();
        self.reseal(Sealed::EndpointSecrets, &mut report).await?;
        self.reseal(Sealed::TotpSeeds, &mut report).await?;
        Ok(report)
    }

    async fn reseal(&self, what: Sealed, report: &mut Resealed) -> Result<(), StoreError> {
        let (select, aad): (&str, fn(Uuid) -> Vec<u8>) = match what {
            Sealed::EndpointSecrets => (ENDPOINTS_SQL, endpoint_aad),
            Sealed::TotpSeeds => (TOTP_SQL, totp_aad),
        };
        let prefix = self.cipher.current_prefix();
        let mut after = Uuid::nil();
        loop {
            let mut conn = self.conn().await?;
            let rows: Vec<SealedRow> = diesel::sql_query(select)
                .bind::<SqlUuid, _>(after)
                .bind::<Bytea, _>(&prefix)
                .bind::<Int4, _>(PREFIX_LEN as i32)
                .bind::<Int8, _>(BATCH)
                .load(&mut conn)
                .await
                .map_err(map_diesel_error)?;
            let Some(last) = rows.last() else {
                return Ok(());
            };
            after = last.id;
            for row in &rows {
                let binding = aad(row.id);
                let open = |sealed: &[u8]| {
                    self.cipher
                        .decrypt(sealed, &binding)
                        .map(|plain| self.cipher.encrypt(&plain, &binding))
                };
                let Ok(sealed) = open(&row.sealed) else {
                    tracing::warn!(row = %row.id, "a stored secret opens with neither secrets key; left as it is");
                    report.unreadable += 1;
                    continue;
                };
                // An unreadable previous secret (it never signs: see the claim) is kept as
                // it is; it must not stop the current one moving to the new key.
                let previous = row.previous.as_deref().map(|p| {
                    open(p).unwrap_or_else(|_| {
                        tracing::warn!(row = %row.id, "a previous signing secret opens with neither secrets key; left as it is");
                        report.unreadable += 1;
                        p.to_vec()
                    })
                });
                let written = match what {
                    Sealed::EndpointSecrets => {
                        diesel::sql_query(UPDATE_ENDPOINT_SQL)
                            .bind::<SqlUuid, _>(row.id)
                            .bind::<Bytea, _>(sealed)
                            .bind::<Nullable<Bytea>, _>(previous)
                            .bind::<Bytea, _>(&row.sealed)
                            .bind::<Nullable<Bytea>, _>(&row.previous)
                            .execute(&mut conn)
                            .await
                    }
                    Sealed::TotpSeeds => {
                        diesel::sql_query(UPDATE_TOTP_SQL)
                            .bind::<SqlUuid, _>(row.id)
                            .bind::<Bytea, _>(sealed)
                            .bind::<Bytea, _>(&row.sealed)
                            .execute(&mut conn)
                            .await
                    }
                }
                .map_err(map_diesel_error)?;
                report.resealed += written as u64;
            }
        }
    }
}
