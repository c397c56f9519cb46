//! Diesel table definitions, kept by hand in step with `migrations/`.

diesel::table! {
    merchants (id) {
        id -> Uuid,
        name -> Text,
        fee_tier -> Text,
        fee_bps -> Int4,
        created_at -> Timestamptz,
        underpayment_tolerance_bps -> Int4,
        screening_test -> Nullable<Bool>,
        screening_live -> Nullable<Bool>,
        wallets_version -> Uuid,
    }
}

diesel::table! {
    api_keys (id) {
        id -> Uuid,
        merchant_id -> Uuid,
        livemode -> Bool,
        key_sha256 -> Bytea,
        last4 -> Text,
        rate_limit_per_min -> Nullable<Int4>,
        created_at -> Timestamptz,
        revoked_at -> Nullable<Timestamptz>,
        last_used_at -> Nullable<Timestamptz>,
        rate_tat -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    dashboard_users (id) {
        id -> Uuid,
        merchant_id -> Uuid,
        email -> Text,
        password_hash -> Nullable<Text>,
        setup_sha256 -> Nullable<Bytea>,
        setup_expires_at -> Nullable<Timestamptz>,
        totp_secret -> Nullable<Bytea>,
        totp_last_step -> Nullable<Int8>,
        failed_logins -> Int4,
        locked_until -> Nullable<Timestamptz>,
        disabled_at -> Nullable<Timestamptz>,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    dashboard_sessions (id) {
        id -> Uuid,
        user_id -> Uuid,
        token_sha256 -> Bytea,
        created_at -> Timestamptz,
        last_seen_at -> Timestamptz,
        revoked_at -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    wallets (id) {
        id -> Uuid,
        merchant_id -> Uuid,
        address -> Text,
        chain_id -> Int4,
        status -> Text,
        verified_at -> Nullable<Timestamptz>,
        revoked_at -> Nullable<Timestamptz>,
        created_at -> Timestamptz,
        verified_mode -> Nullable<Text>,
        revoked_mode -> Nullable<Text>,
    }
}

diesel::table! {
    wallet_challenges (id) {
        id -> Uuid,
        wallet_id -> Uuid,
        nonce -> Text,
        message -> Text,
        expires_at -> Timestamptz,
        used_at -> Nullable<Timestamptz>,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    customers (id) {
        id -> Uuid,
        merchant_id -> Uuid,
        livemode -> Bool,
        address -> Text,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    subscriptions (id) {
        id -> Uuid,
        merchant_id -> Uuid,
        livemode -> Bool,
        status -> Text,
        title -> Text,
        customer_id -> Uuid,
        wallet_address -> Text,
        chain_id -> Int4,
        chain_subscription_id -> Text,
        chain_plan_id -> Text,
        amount_micros -> Int8,
        fee_micros -> Int8,
        interval_seconds -> Int8,
        next_payment_at -> Nullable<Timestamptz>,
        canceled_at -> Nullable<Timestamptz>,
        retry_count -> Int4,
        next_retry_at -> Nullable<Timestamptz>,
        last_failure_code -> Nullable<Text>,
        created_at -> Timestamptz,
        manager_address -> Text,
        recipient_address -> Text,
        token_address -> Text,
        checkout_session_id -> Nullable<Uuid>,
        customer_reference -> Nullable<Text>,
        metadata -> Text,
        version -> Int8,
        billing_lease_until -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    subscription_plans (chain_id, manager_address, plan_id, merchant_id) {
        chain_id -> Int4,
        manager_address -> Text,
        plan_id -> Text,
        merchant_id -> Uuid,
        token_address -> Text,
        recipient_address -> Text,
        amount_micros -> Int8,
        interval_seconds -> Int8,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    keeper_nonces (chain_id, keeper_address) {
        chain_id -> Int4,
        keeper_address -> Text,
        next_nonce -> Int8,
    }
}

diesel::table! {
    keeper_transactions (chain_id, keeper_address, nonce) {
        chain_id -> Int4,
        keeper_address -> Text,
        nonce -> Int8,
        subscription_id -> Uuid,
        period_key -> Timestamptz,
        tx_hash -> Text,
        raw_tx -> Bytea,
        status -> Text,
        created_at -> Timestamptz,
        last_broadcast_at -> Timestamptz,
    }
}

diesel::table! {
    checkout_sessions (id) {
        id -> Uuid,
        merchant_id -> Uuid,
        livemode -> Bool,
        mode -> Text,
        status -> Text,
        title -> Text,
        description -> Nullable<Text>,
        amount_micros -> Int8,
        currency -> Text,
        fee_bps -> Int4,
        fee_micros -> Int8,
        net_micros -> Int8,
        fee_tier -> Text,
        chain_id -> Int4,
        token_address -> Text,
        interval_seconds -> Nullable<Int8>,
        chain_plan_id -> Nullable<Text>,
        recipient_address -> Text,
        customer_id -> Nullable<Uuid>,
        subscription_id -> Nullable<Uuid>,
        customer_reference -> Nullable<Text>,
        success_url -> Nullable<Text>,
        cancel_url -> Nullable<Text>,
        wallet_address -> Nullable<Text>,
        tx_hash -> Nullable<Text>,
        metadata -> Text,
        #[sql_name = "ref"]
        session_ref -> Nullable<Bytea>,
        expires_at -> Timestamptz,
        completed_at -> Nullable<Timestamptz>,
        created_at -> Timestamptz,
        deposit_address -> Nullable<Text>,
        amount_received_micros -> Int8,
        underpayment_tolerance_bps -> Int4,
        underpaid_micros -> Nullable<Int8>,
        awaiting_review -> Bool,
        price_micros -> Nullable<Int8>,
        price_currency -> Nullable<Text>,
        quote_pair -> Nullable<Text>,
        quote_rate_e8 -> Nullable<Int8>,
        quote_feed -> Nullable<Text>,
        quote_round_id -> Nullable<Text>,
        quote_updated_at -> Nullable<Timestamptz>,
        quote_expires_at -> Nullable<Timestamptz>,
        payment_link_id -> Nullable<Uuid>,
        requoted_from_id -> Nullable<Uuid>,
    }
}

diesel::table! {
    payment_links (id) {
        id -> Uuid,
        merchant_id -> Uuid,
        livemode -> Bool,
        name -> Text,
        description -> Nullable<Text>,
        amount_micros -> Nullable<Int8>,
        price_micros -> Nullable<Int8>,
        price_currency -> Nullable<Text>,
        custom_min_micros -> Nullable<Int8>,
        custom_max_micros -> Nullable<Int8>,
        custom_fiat -> Nullable<Text>,
        currency -> Text,
        recipient_address -> Text,
        success_url -> Nullable<Text>,
        metadata -> Text,
        completed_limit -> Nullable<Int4>,
        active -> Bool,
        created_by_type -> Text,
        created_by_id -> Text,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    payments (id) {
        id -> Uuid,
        merchant_id -> Uuid,
        livemode -> Bool,
        status -> Text,
        charge_type -> Text,
        subscription_id -> Nullable<Uuid>,
        customer_id -> Nullable<Uuid>,
        checkout_session_id -> Nullable<Uuid>,
        customer_reference -> Nullable<Text>,
        amount_micros -> Int8,
        currency -> Text,
        fee_micros -> Int8,
        merchant_micros -> Int8,
        refunded_micros -> Int8,
        wallet_address -> Text,
        chain_id -> Int4,
        token_address -> Text,
        tx_hash -> Nullable<Text>,
        log_index -> Nullable<Int8>,
        block_number -> Nullable<Int8>,
        metadata -> Text,
        created_at -> Timestamptz,
        block_hash -> Nullable<Text>,
        receipt_misses -> Int4,
        last_miss_head -> Nullable<Int8>,
        period_key -> Nullable<Timestamptz>,
        overpaid_micros -> Int8,
        underpaid_micros -> Int8,
        reversed -> Bool,
        review_status -> Nullable<Text>,
        review_reason -> Nullable<Text>,
        review_source -> Nullable<Text>,
        reviewed_at -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    deposit_transfers (chain_id, tx_hash, checkout_session_id, token_address) {
        chain_id -> Int4,
        tx_hash -> Text,
        checkout_session_id -> Uuid,
        token_address -> Text,
        from_address -> Text,
        amount_micros -> Int8,
        log_index -> Int8,
        block_number -> Int8,
        block_hash -> Text,
        status -> Text,
        payment_id -> Nullable<Uuid>,
        arrived_at -> Timestamptz,
        sweep_tx_hash -> Nullable<Text>,
        sweep_attempts -> Int4,
        sweep_retry_at -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    deposit_sweeps (chain_id, sender_address, nonce) {
        chain_id -> Int4,
        sender_address -> Text,
        nonce -> Int8,
        tx_hash -> Text,
        raw_tx -> Bytea,
        entries -> Int4,
        status -> Text,
        failed_entries -> Int4,
        gas_used -> Nullable<Int8>,
        gas_cost_wei -> Nullable<Numeric>,
        created_at -> Timestamptz,
        last_broadcast_at -> Timestamptz,
        mined_at -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    refunds (id) {
        id -> Uuid,
        merchant_id -> Uuid,
        livemode -> Bool,
        status -> Text,
        payment_id -> Uuid,
        amount_micros -> Int8,
        currency -> Text,
        chain_id -> Int4,
        token_address -> Text,
        from_address -> Text,
        to_address -> Text,
        tx_hash -> Text,
        log_index -> Int8,
        reason -> Nullable<Text>,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    payment_attempts (id) {
        id -> Uuid,
        merchant_id -> Uuid,
        livemode -> Bool,
        subscription_id -> Uuid,
        payment_id -> Nullable<Uuid>,
        status -> Text,
        attempt_number -> Int4,
        period_key -> Timestamptz,
        failure_code -> Nullable<Text>,
        failure_reason -> Nullable<Text>,
        tx_hash -> Nullable<Text>,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    webhook_endpoints (id) {
        id -> Uuid,
        merchant_id -> Uuid,
        livemode -> Bool,
        url -> Text,
        enabled_events -> Array<Text>,
        status -> Text,
        description -> Nullable<Text>,
        secret_ciphertext -> Bytea,
        previous_secret_ciphertext -> Nullable<Bytea>,
        previous_secret_expires_at -> Nullable<Timestamptz>,
        created_at -> Timestamptz,
        deleted_at -> Nullable<Timestamptz>,
        failing_since -> Nullable<Timestamptz>,
        last_failed_at -> Nullable<Timestamptz>,
        disabled_reason -> Nullable<Text>,
    }
}

diesel::table! {
    events (id) {
        id -> Uuid,
        merchant_id -> Uuid,
        livemode -> Bool,
        #[sql_name = "type"]
        event_type -> Text,
        data -> Text,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    webhook_events (id) {
        id -> Uuid,
        event_id -> Nullable<Uuid>,
        merchant_id -> Uuid,
        livemode -> Bool,
        #[sql_name = "type"]
        event_type -> Text,
        endpoint_id -> Uuid,
        status -> Text,
        attempts -> Int4,
        next_attempt_at -> Nullable<Timestamptz>,
        last_attempt_at -> Nullable<Timestamptz>,
        last_error -> Nullable<Text>,
        response_status -> Nullable<Int4>,
        resend_of -> Nullable<Uuid>,
        payload -> Text,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    webhook_attempts (id) {
        id -> Uuid,
        delivery_id -> Uuid,
        merchant_id -> Uuid,
        livemode -> Bool,
        attempted_at -> Timestamptz,
        duration_ms -> Int4,
        response_status -> Nullable<Int4>,
        error -> Nullable<Text>,
        response_body -> Nullable<Text>,
    }
}

diesel::table! {
    idempotency_keys (merchant_id, livemode, route, key) {
        merchant_id -> Uuid,
        livemode -> Bool,
        route -> Text,
        key -> Text,
        request_sha256 -> Bytea,
        state -> Text,
        response_status -> Nullable<Int4>,
        response_body -> Nullable<Text>,
        locked_at -> Timestamptz,
        expires_at -> Timestamptz,
    }
}

diesel::table! {
    webhook_recoveries (id) {
        id -> Uuid,
        merchant_id -> Uuid,
        livemode -> Bool,
        endpoint_id -> Uuid,
        since -> Timestamptz,
        resume_after -> Uuid,
        enqueued -> Int4,
        still_pending -> Int4,
        leased_until -> Nullable<Timestamptz>,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
        finished_at -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    relayed_transactions (chain_id, sender_address, nonce) {
        chain_id -> Int4,
        sender_address -> Text,
        nonce -> Int8,
        checkout_session_id -> Uuid,
        tx_hash -> Text,
        raw_tx -> Bytea,
        status -> Text,
        gas_used -> Nullable<Int8>,
        gas_cost_wei -> Nullable<Numeric>,
        created_at -> Timestamptz,
        last_broadcast_at -> Timestamptz,
        mined_at -> Nullable<Timestamptz>,
        payer_address -> Nullable<Text>,
        valid_before -> Nullable<Int8>,
        authorization_nonce -> Nullable<Bytea>,
        authorization_terms -> Nullable<Bytea>,
        token_address -> Nullable<Text>,
        relay_value -> Nullable<Numeric>,
        payer_code_hash -> Nullable<Bytea>,
        fill_to -> Nullable<Text>,
        fill_data -> Nullable<Bytea>,
    }
}

diesel::table! {
    sender_attempts (tx_hash) {
        tx_hash -> Text,
        chain_id -> Int4,
        sender_address -> Text,
        nonce -> Int8,
        raw_tx -> Bytea,
        max_fee_wei -> Int8,
        priority_fee_wei -> Int8,
        fill -> Bool,
        sent_block -> Int8,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    balance_transactions (id) {
        id -> Uuid,
        merchant_id -> Uuid,
        livemode -> Bool,
        #[sql_name = "type"]
        type_ -> Text,
        payment_id -> Uuid,
        refund_id -> Nullable<Uuid>,
        amount_micros -> Int8,
        fee_micros -> Int8,
        net_micros -> Int8,
        currency -> Text,
        chain_id -> Int4,
        token_address -> Text,
        tx_hash -> Text,
        log_index -> Int8,
        block_number -> Nullable<Int8>,
        block_time -> Nullable<Timestamptz>,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    audit_events (id) {
        id -> Uuid,
        merchant_id -> Uuid,
        livemode -> Nullable<Bool>,
        actor_type -> Text,
        actor_id -> Nullable<Text>,
        action -> Text,
        target -> Text,
        client_address -> Nullable<Text>,
        before -> Nullable<Text>,
        after -> Nullable<Text>,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    refund_requests (id) {
        id -> Uuid,
        merchant_id -> Uuid,
        livemode -> Bool,
        payment_id -> Uuid,
        amount_micros -> Int8,
        currency -> Text,
        chain_id -> Int4,
        token_address -> Text,
        reason -> Nullable<Text>,
        status -> Text,
        requested_by_type -> Text,
        requested_by_id -> Nullable<Text>,
        destination_address -> Nullable<Text>,
        confirmation -> Nullable<Text>,
        confirmed_from -> Nullable<Text>,
        address_confirmed_at -> Nullable<Timestamptz>,
        refund_id -> Nullable<Uuid>,
        refunded_at -> Nullable<Timestamptz>,
        expires_at -> Timestamptz,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    screening_lists (id) {
        id -> Int8,
        name -> Text,
        version -> Int4,
        format -> Text,
        published -> Nullable<Text>,
        entries -> Int4,
        imported_at -> Timestamptz,
    }
}

diesel::table! {
    screening_entries (address, list_id) {
        list_id -> Int8,
        address -> Bytea,
        entry -> Nullable<Text>,
    }
}

diesel::table! {
    screening_checks (id) {
        id -> Int8,
        merchant_id -> Uuid,
        livemode -> Bool,
        chain_id -> Int4,
        address -> Text,
        session_id -> Nullable<Uuid>,
        subscription_id -> Nullable<Uuid>,
        path -> Text,
        source -> Text,
        list_version -> Nullable<Int4>,
        answer -> Text,
        list -> Nullable<Text>,
        entry -> Nullable<Text>,
        checked_at -> Timestamptz,
    }
}

diesel::allow_tables_to_appear_in_same_query!(
    screening_lists,
    screening_entries,
    audit_events,
    refund_requests,
    balance_transactions,
    merchants,
    api_keys,
    dashboard_users,
    dashboard_sessions,
    wallets,
    wallet_challenges,
    customers,
    subscriptions,
    checkout_sessions,
    payment_links,
    payments,
    refunds,
    payment_attempts,
    webhook_endpoints,
    events,
    webhook_events,
    idempotency_keys,
    subscription_plans,
    keeper_nonces,
    keeper_transactions,
    sender_attempts,
    deposit_transfers,
    deposit_sweeps,
);

diesel::joinable!(api_keys -> merchants (merchant_id));
diesel::joinable!(dashboard_users -> merchants (merchant_id));
diesel::joinable!(dashboard_sessions -> dashboard_users (user_id));

diesel::table! {
    chain_cursors (chain_id) {
        chain_id -> Int4,
        next_block -> Int8,
        updated_at -> Timestamptz,
    }
}
