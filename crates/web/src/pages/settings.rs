//! Account → Settings: the merchant's default underpayment tolerance (D32), which new
//! payment-mode sessions take when their create request names none (both modes share
//! it), and its screening of payers per mode where the operator leaves it open (D33).

use askama::Template;
use stablepay_domain::rules::screening::{MerchantScreening, ScreeningPolicy};
use stablepay_domain::services::{
    set_screening_choice, set_underpayment_tolerance, ScreeningChoiceError,
};
use stablepay_domain::{Mode, UnderpaymentTolerance};

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
    /// One line per mode; empty when the operator alone decides (or screens nothing).
    screening: Vec<ScreeningLine>,
    screening_error: Option<String>,
}

/// A mode's screening as the form shows it.
struct ScreeningLine {
    /// `test` or `live`: the form field is `screening_<mode>`.
    mode: &'static str,
    /// `default`, `on` or `off`.
    chosen: &'static str,
    /// What the deployment does when the merchant chooses nothing.
    default_on: bool,
    /// The operator requires it: shown on, not to be turned off.
    required: bool,
    /// Whether payers of this mode are screened now.
    screened: bool,
}

fn screening_lines(
    policy: Option<ScreeningPolicy>,
    choice: MerchantScreening,
) -> Vec<ScreeningLine> {
    let Some(policy) = policy else {
        return Vec::new();
    };
    [Mode::Test, Mode::Live]
        .into_iter()
        .map(|mode| ScreeningLine {
            mode: mode.as_str(),
            chosen: match choice.of(mode) {
                None => "default",
                Some(true) => "on",
                Some(false) => "off",
            },
            default_on: policy.defaults.screens(mode),
            required: !policy.merchant_decides(mode),
            screened: policy.screens(mode, choice),
        })
        .collect()
}

/// A form value: `on`, `off`, or anything else for the deployment's default.
fn chosen(value: Option<&str>) -> Option<bool> {
    match value {
        Some("on") => Some(true),
        Some("off") => Some(false),
        _ => None,
    }
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

async fn render(
    p: &Page,
    tolerance: UnderpaymentTolerance,
    error: Option<String>,
    screening_error: Option<String>,
) -> Result<Reply, WebError> {
    let policy = p.state.screening;
    let choice = match policy {
        Some(_) => {
            p.state
                .store
                .screening_log()
                .merchant_screening(p.session.user.merchant_id)
                .await?
        }
        None => MerchantScreening::default(),
    };
    Reply::render(&SettingsView {
        chrome: p.chrome("settings", "Settings"),
        tolerance_bps: tolerance.bps(),
        tolerance_percent: percent(tolerance.bps()),
        max_bps: UnderpaymentTolerance::MAX_BPS,
        error,
        screening: screening_lines(policy, choice),
        screening_error,
    })
}

page_handler!(show, |p| async move {
    render(&p, p.session.underpayment_tolerance, None, None).await
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
            None,
        )
        .await;
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

page_handler!(save_screening, |p| async move {
    let choice = MerchantScreening {
        test: chosen(p.form.get("screening_test")),
        live: chosen(p.form.get("screening_live")),
    };
    let s = &p.state;
    match set_screening_choice(
        &p.ctx(),
        choice,
        s.screening,
        &p.changer(),
        s.store.settings(),
        s.clock.as_ref(),
    )
    .await
    {
        Ok(()) => Ok(Reply::Redirect(p.link("/settings?notice=screening_saved"))),
        Err(ScreeningChoiceError::Store(e)) => Err(e.into()),
        Err(refused) => {
            render(
                &p,
                p.session.underpayment_tolerance,
                None,
                Some(format!("{refused}.")),
            )
            .await
        }
    }
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
