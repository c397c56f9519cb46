//! Screening (D33): the operator's imported lists (each import a new version of its name,
//! stored whole in one transaction), lookups of an address in a list's newest version (one
//! indexed statement), and the log of every check, which also counts listed and unknown
//! answers (`stablepay_screening_answers_total`).

use async_trait::async_trait;
use diesel::prelude::*;
use diesel::sql_types::{Bytea, Integer, Nullable, Text};
use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl};
use stablepay_domain::ports::{
    ImportedList, SanctionsListStore, SanctionsSource, ScreeningLog, StoreError,
};
use stablepay_domain::rules::sanctions_list::ParsedList;
use stablepay_domain::rules::screening::MerchantScreening;
use stablepay_domain::{
    Address, ChainId, CheckoutSessionId, MerchantId, Mode, ScreenedPayer, ScreeningAnswer,
    ScreeningCheck, ScreeningPath, ScreeningSource, ScreeningSubject, SourceAnswer, Timestamp,
};

use crate::error::{corrupt, map_diesel_error};
use crate::schema::{
    merchants as m, screening_checks as sc, screening_entries as se, screening_lists as sl,
};
use crate::PgStore;

/// Rows per `INSERT` of a list's entries (3 binds each, under PostgreSQL's 65,535).
const ENTRIES_PER_INSERT: usize = 10_000;

#[async_trait]
impl ScreeningLog for PgStore {
    async fn record_checks(&self, checks: &[ScreeningCheck]) -> Result<(), StoreError> {
        let rows: Vec<_> = checks
            .iter()
            .map(|c| {
                let (list, entry) = match &c.answer {
                    ScreeningAnswer::Listed { list, entry } => (Some(list.clone()), entry.clone()),
                    _ => (None, None),
                };
                (
                    sc::merchant_id.eq(c.payer.merchant_id.uuid()),
                    sc::livemode.eq(c.payer.mode.is_live()),
                    sc::chain_id.eq(c.payer.chain.id() as i32),
                    sc::address.eq(c.payer.address.to_string()),
                    sc::session_id.eq(match c.payer.subject {
                        ScreeningSubject::Session(id) => Some(id.uuid()),
                        ScreeningSubject::Subscription(_) => None,
                    }),
                    sc::subscription_id.eq(match c.payer.subject {
                        ScreeningSubject::Subscription(id) => Some(id.uuid()),
                        ScreeningSubject::Session(_) => None,
                    }),
                    sc::path.eq(c.path.as_str()),
                    sc::source.eq(c.source.name.clone()),
                    sc::list_version.eq(c.source.version.and_then(|v| i32::try_from(v).ok())),
                    sc::answer.eq(c.answer.as_str()),
                    sc::list.eq(list),
                    sc::entry.eq(entry),
                    sc::checked_at.eq(c.checked_at.as_datetime()),
                )
            })
            .collect();
        let mut conn = self.conn().await?;
        diesel::insert_into(sc::table)
            .values(rows)
            .execute(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        for c in checks {
            if c.answer != ScreeningAnswer::Clear {
                metrics::counter!(
                    "stablepay_screening_answers_total",
                    "answer" => c.answer.as_str(),
                    "path" => c.path.as_str(),
                    "source" => c.source.name.clone(),
                )
                .increment(1);
            }
        }
        Ok(())
    }

    async fn checks_of_session(
        &self,
        merchant: MerchantId,
        mode: Mode,
        session: CheckoutSessionId,
    ) -> Result<Vec<ScreeningCheck>, StoreError> {
        let mut conn = self.conn().await?;
        let rows: Vec<CheckRow> = sc::table
            .filter(sc::merchant_id.eq(merchant.uuid()))
            .filter(sc::livemode.eq(mode.is_live()))
            .filter(sc::session_id.eq(session.uuid()))
            .order(sc::id.asc())
            .limit(100)
            .select((
                sc::chain_id,
                sc::address,
                sc::path,
                sc::source,
                sc::list_version,
                sc::answer,
                sc::list,
                sc::entry,
                sc::checked_at,
            ))
            .load(&mut conn)
            .await
            .map_err(map_diesel_error)?;
        rows.into_iter()
            .map(
                |(chain, address, path, source, version, answer, list, entry, at)| {
                    let bad = |what: &str, v: &str| corrupt(what, v);
                    Ok(ScreeningCheck {
                        payer: ScreenedPayer {
                            merchant_id: merchant,
                            mode,
                            chain: u64::try_from(chain)
                                .ok()
                                .and_then(ChainId::from_id)
                                .ok_or_else(|| corrupt("chain_id", chain))?,
                            address: Address::parse(&address)
                                .map_err(|_| bad("address", &address))?,
                            subject: ScreeningSubject::Session(session),
                        },
                        path: ScreeningPath::parse(&path).ok_or_else(|| bad("path", &path))?,
                        source: ScreeningSource {
                            name: source,
                            version: version.map(i64::from),
                        },
                        answer: match (answer.as_str(), list) {
                            ("clear", _) => ScreeningAnswer::Clear,
                            ("listed", Some(list)) => ScreeningAnswer::Listed { list, entry },
                            ("unknown", _) => ScreeningAnswer::Unknown,
                            _ => return Err(bad("answer", &answer)),
                        },
                        checked_at: Timestamp::new(at),
                    })
                },
            )
            .collect()
    }

    async fn merchant_screening(
        &self,
        merchant: MerchantId,
    ) -> Result<MerchantScreening, StoreError> {
        let mut conn = self.conn().await?;
        let choice: Option<(Option<bool>, Option<bool>)> = m::table
            .filter(m::id.eq(merchant.uuid()))
            .select((m::screening_test, m::screening_live))
            .first(&mut conn)
            .await
            .optional()
            .map_err(map_diesel_error)?;
        Ok(
            choice.map_or_else(MerchantScreening::default, |(test, live)| {
                MerchantScreening { test, live }
            }),
        )
    }
}

type CheckRow = (
    i32,
    String,
    String,
    String,
    Option<i32>,
    String,
    Option<String>,
    Option<String>,
    chrono::DateTime<chrono::Utc>,
);

#[derive(QueryableByName)]
struct Lookup {
    #[diesel(sql_type = Integer)]
    version: i32,
    #[diesel(sql_type = diesel::sql_types::Bool)]
    listed: bool,
    #[diesel(sql_type = Nullable<Text>)]
    entry: Option<String>,
}

/// The newest version of a list and, if the address is in it, its entry: one statement on
/// the entries' primary key (address, list).
const LOOKUP_SQL: &str = "SELECT l.version, e.list_id IS NOT NULL AS listed, e.entry \
     FROM (SELECT id, version FROM screening_lists WHERE name = $1 \
           ORDER BY version DESC LIMIT 1) l \
     LEFT JOIN screening_entries e ON e.list_id = l.id AND e.address = $2";

/// One imported list, by name, as a sanctions source: its newest version answers. A name
/// never imported answers `Unknown` (configured to screen with it, it cannot say clear).
pub struct PgSanctionsList {
    store: PgStore,
    name: String,
}

impl PgSanctionsList {
    pub fn new(store: PgStore, name: impl Into<String>) -> Self {
        Self {
            store,
            name: name.into(),
        }
    }

    async fn lookup(&self, address: Address) -> Result<Option<Lookup>, StoreError> {
        let mut conn = self.store.conn().await?;
        diesel::sql_query(LOOKUP_SQL)
            .bind::<Text, _>(&self.name)
            .bind::<Bytea, _>(address.as_bytes().to_vec())
            .get_result::<Lookup>(&mut conn)
            .await
            .optional()
            .map_err(map_diesel_error)
    }
}

#[async_trait]
impl SanctionsSource for PgSanctionsList {
    fn covers(&self, _chain: ChainId) -> bool {
        true
    }

    async fn check(&self, _chain: ChainId, address: Address) -> SourceAnswer {
        let (version, answer) = match self.lookup(address).await {
            Ok(Some(found)) if found.listed => (
                Some(i64::from(found.version)),
                ScreeningAnswer::Listed {
                    list: self.name.clone(),
                    entry: found.entry,
                },
            ),
            Ok(Some(found)) => (Some(i64::from(found.version)), ScreeningAnswer::Clear),
            Ok(None) => (None, ScreeningAnswer::Unknown),
            Err(e) => {
                tracing::warn!(list = %self.name, error = %e, "screening list lookup failed");
                (None, ScreeningAnswer::Unknown)
            }
        };
        SourceAnswer {
            source: ScreeningSource {
                name: self.name.clone(),
                version,
            },
            answer,
        }
    }
}

/// What an imported list's row is read as (`ListRow`).
const LIST_COLUMNS: (
    sl::name,
    sl::version,
    sl::format,
    sl::published,
    sl::entries,
    sl::imported_at,
) = (
    sl::name,
    sl::version,
    sl::format,
    sl::published,
    sl::entries,
    sl::imported_at,
);

type ListRow = (
    String,
    i32,
    String,
    Option<String>,
    i32,
    chrono::DateTime<chrono::Utc>,
);

fn imported(row: ListRow) -> Result<ImportedList, StoreError> {
    let (name, version, format, published, entries, imported_at) = row;
    Ok(ImportedList {
        name,
        version: i64::from(version),
        format,
        published,
        entries: usize::try_from(entries).map_err(|_| corrupt("entries", entries))?,
        imported_at: Timestamp::new(imported_at),
    })
}

#[async_trait]
impl SanctionsListStore for PgStore {
    async fn import_list(
        &self,
        name: &str,
        list: &ParsedList,
        at: Timestamp,
    ) -> Result<ImportedList, StoreError> {
        let count = i32::try_from(list.addresses.len())
            .map_err(|_| StoreError::Internal("a list of over 2^31 addresses".into()))?;
        let mut conn = self.conn().await?;
        let row: ListRow = conn
            .transaction(async |conn| {
                // Versions of one name are taken in turn: two imports at once wait here.
                diesel::sql_query("SELECT pg_advisory_xact_lock(hashtext($1)::bigint)")
                    .bind::<Text, _>(name)
                    .execute(conn)
                    .await?;
                let newest: Option<i32> = sl::table
                    .filter(sl::name.eq(name))
                    .select(diesel::dsl::max(sl::version))
                    .first(conn)
                    .await?;
                let (id, row): (i64, ListRow) = diesel::insert_into(sl::table)
                    .values((
                        sl::name.eq(name),
                        sl::version.eq(newest.unwrap_or(0) + 1),
                        sl::format.eq(list.format.as_str()),
                        sl::published.eq(list.published.clone()),
                        sl::entries.eq(count),
                        sl::imported_at.eq(at.as_datetime()),
                    ))
                    .returning((sl::id, LIST_COLUMNS))
                    .get_result(conn)
                    .await?;
                for chunk in list.addresses.chunks(ENTRIES_PER_INSERT) {
                    let rows: Vec<_> = chunk
                        .iter()
                        .map(|a| {
                            (
                                se::list_id.eq(id),
                                se::address.eq(a.address.as_bytes().to_vec()),
                                se::entry.eq(a.entry.clone()),
                            )
                        })
                        .collect();
                    diesel::insert_into(se::table)
                        .values(rows)
                        .execute(conn)
                        .await?;
                }
                diesel::QueryResult::Ok(row)
            })
            .await
            .map_err(map_diesel_error)?;
        imported(row)
    }

    async fn imported_lists(&self) -> Result<Vec<ImportedList>, StoreError> {
        let mut conn = self.conn().await?;
        newest_lists(&mut conn).await
    }
}

async fn newest_lists(conn: &mut AsyncPgConnection) -> Result<Vec<ImportedList>, StoreError> {
    let rows: Vec<ListRow> = sl::table
        .distinct_on(sl::name)
        .order((sl::name, sl::version.desc()))
        .select(LIST_COLUMNS)
        .load(conn)
        .await
        .map_err(map_diesel_error)?;
    rows.into_iter().map(imported).collect()
}

/// The newest version of every imported list, for `doctor` (its own connection).
pub async fn imported_lists_at(database_url: &str) -> Result<Vec<ImportedList>, String> {
    let mut conn = AsyncPgConnection::establish(database_url)
        .await
        .map_err(|_| "the database could not be reached".to_string())?;
    newest_lists(&mut conn)
        .await
        .map_err(|e| format!("screening lists unreadable: {e}"))
}
