//! Payment links from the dashboard (D34): the same use case as the API's, its page with
//! the URL and QR code, and the switch.

use super::*;

#[tokio::test]
async fn a_link_from_the_form_has_its_page_qr_code_and_switch() {
    let app = spawn_app().await;
    let address = app.verified_wallet(&app.a.test_key, &WALLET_KEY).await;
    let mut b = signed_in(&app, app.a.id, "ops@a.example").await;
    let csrf = b.csrf("/dashboard/test/payment_links").await;
    // Every bad field named at once, the form kept.
    let res = b
        .post(
            "/dashboard/test/payment_links",
            &[
                ("csrf", &csrf),
                ("name", "Tip jar"),
                ("pricing", "custom"),
                ("minimum", "50"),
                ("maximum", "5"),
                ("unit", "USDC"),
                ("completed_limit", "0"),
            ],
        )
        .await;
    let html = res.text().await.unwrap();
    assert!(
        html.contains("maximum:") && html.contains("completed_limit:"),
        "{html}"
    );
    assert!(html.contains(r#"value="Tip jar""#), "the form is kept");

    let res = b
        .post(
            "/dashboard/test/payment_links",
            &[
                ("csrf", &csrf),
                ("name", "Tip jar"),
                ("pricing", "custom"),
                ("minimum", "1"),
                ("maximum", "100"),
                ("unit", "USDC"),
                ("token", "auto"),
                ("recipient", &address),
                ("completed_limit", "20"),
            ],
        )
        .await;
    assert_eq!(res.status(), 303);
    let page = location(&res);
    assert!(
        page.contains("/dashboard/test/payment_links/plink_"),
        "{page}"
    );
    let html = b.text(&page).await;
    assert!(
        html.contains("1.00 USDC–100.00 USDC, buyer&#39;s choice"),
        "{html}"
    );
    assert!(html.contains("0 of 20"), "{html}");
    assert!(
        html.contains(r#"id="link-qr""#) && html.contains("<svg"),
        "a QR code of the URL"
    );
    let id = page
        .rsplit('/')
        .next()
        .unwrap()
        .split('?')
        .next()
        .unwrap()
        .to_owned();
    assert!(html.contains(&format!("https://pay.example/link/{id}")));

    // The API sees the same link; the switch turns it off.
    let l: serde_json::Value = app
        .get(&app.a.test_key, &format!("/payment_links/{id}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(l["custom_amount"]["maximum"], "100");
    assert_eq!(l["completed_limit"], 20);
    let res = b
        .post(
            &format!("/dashboard/test/payment_links/{id}/active"),
            &[("csrf", &csrf), ("active", "false")],
        )
        .await;
    assert_eq!(res.status(), 303);
    let html = b.text(&location(&res)).await;
    assert!(html.contains("opens no session"), "{html}");
    let l: serde_json::Value = app
        .get(&app.a.test_key, &format!("/payment_links/{id}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(l["active"], false);
    // The list shows it, inactive.
    let list = b.text("/dashboard/test/payment_links").await;
    assert!(
        list.contains("Tip jar") && list.contains("inactive"),
        "{list}"
    );
    // Another merchant's dashboard has no such link.
    let mut other = signed_in(&app, app.b.id, "ops@b.example").await;
    let res = other
        .get(&format!("/dashboard/test/payment_links/{id}"))
        .await;
    assert_eq!(res.status(), 404);
}
