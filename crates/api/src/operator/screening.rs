//! `stablepay-api screening import|lists` (D33): the operator's sanctions lists.

use clap::Subcommand;
use stablepay_domain::ports::{SanctionsListStore, SystemClock};
use stablepay_domain::services::import_sanctions_list;

use super::{admin_store, Record};

#[derive(Subcommand)]
pub enum ScreeningCommand {
    /// Import a list as the next version of --source: OFAC's SDN XML (sdn.xml, its
    /// "Digital Currency Address" ids) or one EVM address per line. Prints the counts.
    Import {
        file: std::path::PathBuf,
        /// The list's name, as STABLEPAY_SCREENING_LISTS names it (a-z, 0-9, _ and -).
        #[arg(long)]
        source: String,
        #[arg(long)]
        json: bool,
    },
    /// The newest version of every imported list.
    Lists {
        #[arg(long)]
        json: bool,
    },
}

pub async fn screening(cmd: ScreeningCommand) -> Result<(), String> {
    let store = admin_store().await?;
    match cmd {
        ScreeningCommand::Import { file, source, json } => {
            let text = std::fs::read_to_string(&file)
                .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
            let import = import_sanctions_list(&source, &text, &store, &SystemClock)
                .await
                .map_err(|e| e.to_string())?;
            let list = &import.stored;
            Record::new()
                .with("source", list.name.clone())
                .with("version", list.version)
                .with("format", list.format.clone())
                .with("published", list.published.clone().unwrap_or_default())
                .with("addresses", list.entries)
                .with("duplicates", import.duplicates)
                .with("skipped_other_currencies", import.skipped_other_currencies)
                .print(json);
            eprintln!(
                "Lookups read version {} of {} from now on (when STABLEPAY_SCREENING_LISTS names it).",
                list.version, list.name
            );
        }
        ScreeningCommand::Lists { json } => {
            for list in store.imported_lists().await.map_err(|e| e.to_string())? {
                Record::new()
                    .with("source", list.name)
                    .with("version", list.version)
                    .with("format", list.format)
                    .with("addresses", list.entries)
                    .with("imported_at", list.imported_at.as_datetime().to_rfc3339())
                    .print(json);
            }
        }
    }
    Ok(())
}
