//! Account → Settings: the merchant's default underpayment tolerance (D32), which new
//! payment-mode sessions take when their create request names none. Both modes share it.

use askama::Template;
use stablepay_domain::services::set_underpayment_tolerance;
use stablepay_domain::UnderpaymentTolerance;

use super::page_handler;
use crate::shell::{Chrome, Page, Reply, WebError};

#[derive(Template)]
#[template(path = "settings.html")]
struct SettingsView {
    chrome: Chrome,
    tolerance_bps: u16,
    /// The same as a percentage, for people ("0.5 %").
    tolerance_percent: String,
    max_bps: u16,
    error: Option<String>,
}

fn percent(bps: u16) -> String {
    // Basis points to a percentage without floats: 50 → "0.5", 1000 → "10".
    let (whole, frac) = (bps / 100, bps % 100);
    match frac {
        0 => format!("{whole}"),
        f if f % 10 == 0 => format!("{whole}.{}", f / 10),
        f => format!("{whole}.{f:02}"),
    }
}

fn render(
    p: &Page,
    tolerance: UnderpaymentTolerance,
    error: Option<String>,
) -> Result<Reply, WebError> {
    Reply::render(&SettingsView {
        chrome: p.chrome("settings", "Settings"),
        tolerance_bps: tolerance.bps(),
        tolerance_percent: percent(tolerance.bps()),
        max_bps: UnderpaymentTolerance::MAX_BPS,
        error,
    })
}

page_handler!(show, |p| async move {
    render(&p, p.session.underpayment_tolerance, None)
});

page_handler!(save, |p| async move {
    let asked = p
        .form
        .get("underpayment_tolerance_bps")
        .and_then(|v| v.trim().parse::<u16>().ok())
        .and_then(UnderpaymentTolerance::from_bps);
    let Some(tolerance) = asked else {
        return render(
            &p,
            p.session.underpayment_tolerance,
            Some(format!(
                "The tolerance must be a whole number of basis points from 0 to {} (50 is 0.5 %).",
                UnderpaymentTolerance::MAX_BPS
            )),
        );
    };
    let s = &p.state;
    set_underpayment_tolerance(
        &p.ctx(),
        tolerance,
        &p.changer(),
        s.store.settings(),
        s.clock.as_ref(),
    )
    .await?;
    Ok(Reply::Redirect(p.link("/settings?notice=settings_saved")))
});

#[cfg(test)]
mod tests {
    #[test]
    fn basis_points_read_as_percentages() {
        for (bps, shown) in [
            (0, "0"),
            (5, "0.05"),
            (50, "0.5"),
            (75, "0.75"),
            (1000, "10"),
        ] {
            assert_eq!(super::percent(bps), shown);
        }
    }
}
