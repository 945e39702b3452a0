"""Table themes: the business kinds of table (orders, web_sessions, devices...) and the columns each may have.

A theme has table name stems, a key column and a list of candidate columns, each a
``name:domain[:variant]`` spec (no variant: the plan picks one per column). :data:`GENERIC_COLUMNS`
may join any table.
"""

from __future__ import annotations

from dataclasses import dataclass

from sample_lake.domains import COMPOSITE, DOMAINS


@dataclass(frozen=True)
class ColSpec:
    name: str
    domain: str
    variant: str | None

    @property
    def kind(self) -> str:
        return COMPOSITE if self.domain == COMPOSITE else DOMAINS[self.domain].kind


def parse_specs(text: str) -> tuple[ColSpec, ...]:
    """Parse ``name:domain[:variant]`` tokens separated by whitespace."""
    out = []
    for token in text.split():
        name, dom, *rest = token.split(":")
        out.append(ColSpec(name, dom, rest[0] if rest else None))
    return tuple(out)


@dataclass(frozen=True)
class Theme:
    name: str
    stems: tuple[str, ...]
    key: ColSpec
    columns: tuple[ColSpec, ...]


def _theme(name: str, stems: str, key: str, columns: str) -> Theme:
    return Theme(name, tuple(stems.split()), parse_specs(key)[0], parse_specs(columns))


GENERIC_COLUMNS = parse_specs("""
    created_at:timestamp updated_at:timestamp ingested_at:timestamp load_date:date record_uuid:uuid
    etl_batch_id:underscore_id:batch is_deleted:boolean row_md5:md5 source_system:status:source_lower
    source_host:hostname notes:free_text comments:free_text record_version:integer:count
    legacy_key:composite:random
""")

THEMES: dict[str, Theme] = {t.name: t for t in (
    _theme("orders", "sales_orders orders order_lines ecommerce_orders", "order_id:prefixed_id:ORD", """
        customer_id:prefixed_id:CUST customer_ref:underscore_id:cust order_ts:timestamp order_date:date
        ship_date:date order_status:status:order_camel sku:prefixed_id:SKU product_code:alnum_code
        quantity:integer:quantity unit_price:price amount:currency_amount total_amount:currency_amount
        discount_pct:percentage tax_rate:percentage currency:currency_code country:country_alpha2
        ship_state:us_state ship_zip:zip_code shipping_address:street_address ship_city:city
        customer_name:person_name customer_email:email product_name:product_name gift_message:free_text
        channel:status:channel_lower is_gift:boolean promo_code:alnum_code locale:locale weight_kg:float
        order_ref:composite:order_ref legacy_order_record:composite:booking_record
    """),
    _theme("web_sessions", "web_sessions clickstream_events page_views", "session_id:uuid", """
        user_id:underscore_id:usr client_ip:ipv4 client_ipv6:ipv6 event_time:timestamp request_ts:timestamp
        page_url:url referrer_url:url user_agent:user_agent locale:locale accept_language:language_code
        country_code:country_alpha2 http_method:http_method status_code:http_status duration:duration
        response_ms:integer:count bytes_sent:integer:large device_mac:mac is_bot:boolean
        session_start:time_of_day search_query:free_text visitor_email:email city:city
        latitude:geo_coordinate:lat longitude:geo_coordinate:lon bounce_rate:percentage content_type:mime_type
        server_host:hostname server_port:port remote_addr:composite:endpoint session_key:composite:session_key
        page_title:product_name referrer_company:company_name
    """),
    _theme("devices", "devices iot_devices device_inventory fleet_assets", "device_id:prefixed_id:DEV", """
        serial_number:alnum_code device_mac:mac wifi_mac:mac mgmt_ip:ipv4 ipv6_address:ipv6 hostname:hostname
        firmware_version:version os_version:version last_seen_at:timestamp registered_at:timestamp
        install_date:date device_status:status:device_lower owner_email:email owner_name:person_name
        site_city:city site_address:street_address region:cloud_region battery_pct:percentage
        temperature_c:float drift_ppm:scientific uptime:duration is_managed:boolean config_sha1:sha1
        model_name:product_name vendor:company_name latitude:geo_coordinate:lat longitude:geo_coordinate:lon
        mgmt_port:port asset_tag:prefixed_id:AST notes:free_text mgmt_endpoint:composite:endpoint
        firmware_commit:git_sha log_level:log_level firmware_sha256:sha256
    """),
    _theme("customers", "customers crm_contacts customer_profiles accounts",
           "customer_id:prefixed_id:CUST", """
        account_ref:underscore_id:acct full_name:person_name email:email phone:phone mobile_phone:phone
        street_address:street_address city:city state:us_state zip:zip_code country:country_alpha2
        country_iso3:country_alpha3 preferred_locale:locale language:language_code
        account_status:status:account_upper tier:status:tier_title signup_date:date last_login_at:timestamp
        birth_date:date company:company_name job_title:job_title lifetime_value:currency_amount
        credit_limit:currency_amount marketing_opt_in:boolean is_vip:boolean customer_uuid:uuid
        referral_code:alnum_code churn_score:float home_currency:currency_code card_on_file:masked_card
        customer_key:composite:customer_ref geo_key:composite:geo_key
    """),
    _theme("payments", "payments card_transactions refunds payment_events", "payment_id:prefixed_id:PAY", """
        transaction_uuid:uuid order_id:prefixed_id:ORD invoice_id:prefixed_id:INV
        customer_id:underscore_id:cust amount:currency_amount fee_amount:currency_amount
        net_amount:signed_number currency:currency_code payment_status:status:payment_lower
        card_number:masked_card card_country:country_alpha2 billing_country:country_alpha3
        billing_zip:zip_code authorized_at:timestamp settled_at:timestamp settlement_date:date
        processor_ref:alnum_code client_ip:ipv4 is_3ds:boolean risk_score:float fx_rate:float
        gateway_host:hostname idempotency_key:uuid statement_descriptor:company_name decline_reason:free_text
        cardholder_name:person_name payload_md5:md5 payment_ref:composite:order_ref
    """),
    _theme("releases", "releases build_artifacts deployments ci_builds", "release_id:numeric_id", """
        version:version previous_version:version git_sha:git_sha commit_sha:sha1 artifact_sha256:sha256
        artifact_md5:md5 artifact_path:file_path artifact_url:url built_at:timestamp deployed_at:timestamp
        release_date:date build_duration:duration release_status:status:release_lower
        job_status:status:job_upper author_email:email author_name:person_name release_notes:free_text
        target_host:hostname target_region:cloud_region is_hotfix:boolean artifact_size:integer:large
        test_pass_rate:percentage flake_rate:scientific content_type:mime_type pipeline_id:underscore_id:run
        coverage:float build_tag:composite:build_tag service_port:port approver_name:person_name
        log_level:log_level healthcheck_status:http_status
    """),
    _theme("audit_log", "audit_log access_log security_events auth_events", "event_id:uuid", """
        event_time:timestamp logged_at:timestamp actor_email:email actor_id:underscore_id:usr
        actor_name:person_name actor_title:job_title source_ip:ipv4 source_ipv6:ipv6 source_port:port
        http_method:http_method request_url:url response_status:http_status log_level:log_level
        action:status:audit_upper resource_id:prefixed_id user_agent:user_agent session_id:uuid
        mfa_used:boolean device_mac:mac request_guid:uuid:guid message:free_text geo_country:country_alpha2
        target_host:hostname payload_sha256:sha256 elapsed:duration apache_ts:timestamp:apache locale:locale
        client_endpoint:composite:endpoint cert_sha1:sha1
    """),
    _theme("inventory", "inventory stock_levels warehouse_items", "sku:prefixed_id:SKU", """
        product_name:product_name product_code:alnum_code barcode:numeric_id warehouse_code:prefixed_id:WH
        bin_location:alnum_code quantity_on_hand:integer:quantity reorder_level:integer:count unit_cost:price
        list_price:price inventory_value:currency_amount currency:currency_code supplier:company_name
        supplier_country:country_alpha3 last_counted_at:timestamp received_date:date expiry_date:date
        is_active:boolean item_status:status:account_upper category:status:category_title weight_kg:float
        shrinkage_pct:percentage warehouse_city:city warehouse_address:street_address notes:free_text
        po_number:prefixed_id:PO stock_key:composite:random
    """),
    _theme("shipments", "shipments delivery_tracking carrier_events", "shipment_id:prefixed_id:SHP", """
        tracking_number:alnum_code order_id:prefixed_id:ORD carrier:status:carrier_upper shipped_at:timestamp
        delivered_at:timestamp estimated_delivery:date ship_date:date shipment_status:status:shipment_camel
        origin_country:country_alpha2 destination_country:country_alpha3 dest_state:us_state dest_zip:zip_code
        dest_city:city dest_address:street_address recipient_name:person_name recipient_phone:phone
        weight_kg:float package_count:integer:count shipping_cost:currency_amount transit_time:duration
        label_url:url signature_required:boolean delivery_notes:free_text scan_time:time_of_day
        latitude:geo_coordinate:lat longitude:geo_coordinate:lon geo_key:composite:geo_key
    """),
    _theme("support_tickets", "support_tickets helpdesk_cases zendesk_tickets",
           "ticket_id:prefixed_id:TKT", """
        customer_id:prefixed_id:CUST requester_email:email requester_name:person_name requester_phone:phone
        assignee:person_name assignee_title:job_title assignee_email:email subject:free_text
        description:free_text status:status:ticket_upper priority:status:severity_upper
        channel:status:channel_lower opened_at:timestamp resolved_at:timestamp first_response_time:duration
        due_date:date satisfaction_score:integer:count product_name:product_name company:company_name
        locale:locale language:language_code is_escalated:boolean attachment_mime:mime_type
        attachment_path:file_path client_ip:ipv4 user_agent:user_agent app_version:version
        sla_breach_pct:percentage country:country_alpha2 ticket_ref:composite:random build_sha:git_sha
        attachment_sha256:sha256
    """),
    _theme("employees", "employees hr_directory workforce", "employee_id:prefixed_id:EMP", """
        full_name:person_name work_email:email personal_email:email work_phone:phone job_title:job_title
        department:status:department_title manager_name:person_name manager_id:prefixed_id:EMP hire_date:date
        termination_date:date birth_date:date office_city:city office_address:street_address home_zip:zip_code
        state:us_state country:country_alpha2 salary:currency_amount bonus_pct:percentage
        employment_status:status:account_upper is_remote:boolean badge_code:alnum_code laptop_mac:mac
        preferred_locale:locale last_login_at:timestamp shift_start:time_of_day employee_uuid:uuid
        bio:free_text office_geo:composite:geo_key primary_language:language_code
    """),
    _theme("invoices", "invoices billing_invoices ar_ledger", "invoice_id:prefixed_id:INV", """
        customer_id:prefixed_id:CUST po_number:prefixed_id:PO bill_to_company:company_name
        bill_to_name:person_name bill_to_address:street_address bill_to_city:city bill_to_state:us_state
        bill_to_zip:zip_code bill_to_country:country_alpha3 invoice_date:date due_date:date
        issued_at:timestamp paid_at:timestamp subtotal:currency_amount tax_amount:currency_amount
        total_due:currency_amount balance:signed_number currency:currency_code tax_rate:percentage
        payment_terms:status:terms_upper invoice_status:status:payment_lower is_overdue:boolean memo:free_text
        pdf_url:url pdf_sha1:sha1 line_count:integer:count fx_rate:float payment_card:masked_card
        invoice_ref:composite:order_ref
    """),
    _theme("products", "products product_catalog catalog_items", "product_id:numeric_id", """
        sku:prefixed_id:SKU product_name:product_name brand:company_name category:status:category_title
        description:free_text list_price:price sale_price:price msrp:currency_amount currency:currency_code
        gtin:numeric_id model_number:alnum_code color:status:color_title weight_kg:float rating:float
        review_count:integer:count discount_pct:percentage launch_date:date image_url:url image_mime:mime_type
        image_md5:md5 origin_country:country_alpha2 catalog_locale:locale manufacturer:company_name
        firmware_version:version is_discontinued:boolean firmware_build:composite:build_tag
        content_language:language_code image_sha1:sha1
    """),
    _theme("network_flows", "network_flows firewall_logs dns_queries netflow_records",
           "flow_id:numeric_id", """
        src_ip:ipv4 dst_ip:ipv4 src_ipv6:ipv6 dst_ipv6:ipv6 src_port:port dst_port:port src_mac:mac
        dst_mac:mac protocol:status:protocol_upper action:status:fw_upper bytes_in:integer:large
        packets:integer:count start_time:timestamp end_time:timestamp duration:duration src_host:hostname
        dst_host:hostname geo_country:country_alpha2 sensor_region:cloud_region rule_id:prefixed_id:RULE
        threat_score:float packet_loss_pct:percentage jitter_ms:float log_level:log_level
        sample_rate:scientific delta_bytes:signed_number src_endpoint:composite:endpoint
        dst_endpoint:composite:host_port rule_description:free_text isp_name:company_name src_city:city
        http_method:http_method
    """),
    _theme("app_logs", "app_logs service_logs job_runs batch_jobs", "log_id:uuid", """
        log_ts:timestamp level:log_level message:free_text service_host:hostname pod_ip:ipv4 pod_ipv6:ipv6
        log_file:file_path output_path:file_path trace_id:md5 request_id:uuid job_status:status:job_upper
        duration:duration elapsed_ms:integer:count exit_code:integer:count cpu_pct:percentage
        memory_bytes:integer:large error_rate:scientific app_version:version commit:git_sha
        http_method:http_method http_status:http_status region:cloud_region started_at:timestamp run_date:date
        start_time:time_of_day retried:boolean listen_port:port environment:status:env_lower
        upstream:composite:host_port error_message:free_text owner_name:person_name client_agent:user_agent
    """),
    _theme("marketing", "campaigns email_sends ad_clicks", "campaign_id:prefixed_id:CMP", """
        subject_line:free_text recipient_email:email recipient_name:person_name sent_at:timestamp
        opened_at:timestamp clicked_url:url landing_page:url target_locale:locale
        target_language:language_code target_country:country_alpha2 channel:status:channel_lower
        budget:currency_amount cost_per_click:price ctr:percentage conversion_rate:percentage
        impressions:integer:large clicks:integer:count start_date:date end_date:date is_test:boolean
        advertiser:company_name client_ip:ipv4 user_agent:user_agent ad_group:alnum_code tracking_id:uuid
        creative_md5:md5 roi:signed_number locale_currency:composite:locale_currency
        landing_status:http_status
    """),
    _theme("bookings", "bookings hotel_reservations travel_bookings", "booking_id:prefixed_id:BK", """
        confirmation_code:alnum_code guest_name:person_name guest_email:email guest_phone:phone
        hotel_name:company_name hotel_city:city hotel_address:street_address check_in_date:date
        check_out_date:date booked_at:timestamp modified_at:timestamp booking_status:status:order_camel
        nightly_rate:price total_price:currency_amount currency:currency_code guest_country:country_alpha3
        guest_locale:locale room_count:integer:quantity special_requests:free_text is_refundable:boolean
        arrival_time:time_of_day channel:status:channel_lower occupancy_pct:percentage
        loyalty_id:underscore_id:loy card_last4:masked_card hotel_lat:geo_coordinate:lat
        hotel_lon:geo_coordinate:lon booking_record:composite:booking_record
        legacy_record:composite:booking_record guest_language:language_code
    """),
    _theme("purchase_orders", "purchase_orders vendor_invoices procurement", "po_number:prefixed_id:PO", """
        vendor_id:underscore_id:vnd vendor_name:company_name vendor_contact:person_name
        vendor_contact_title:job_title vendor_email:email vendor_phone:phone vendor_country:country_alpha2
        ship_to_address:street_address ship_to_city:city ship_to_state:us_state ship_to_zip:zip_code
        order_date:date expected_date:date approved_at:timestamp approver_id:prefixed_id:EMP
        line_item:product_name sku:prefixed_id:SKU quantity:integer:quantity unit_cost:price
        extended_cost:currency_amount currency:currency_code payment_terms:status:terms_upper
        po_status:status:account_upper is_approved:boolean tax_pct:percentage contract_ref:alnum_code
        attachment_path:file_path po_ref:composite:order_ref
    """),
    _theme("file_uploads", "file_uploads object_storage_inventory media_assets", "object_id:uuid", """
        object_key:file_path file_path:file_path mime_type:mime_type content_type:mime_type
        size_bytes:integer:large sha256:sha256 md5:md5 etag:md5 sha1:sha1 uploaded_at:timestamp
        last_modified:timestamp uploader_email:email uploader_ip:ipv4 bucket_region:cloud_region
        storage_host:hostname public_url:url is_public:boolean retention_days:integer:count
        scan_status:status:job_upper caption:free_text owner_name:person_name compression_ratio:float
        upload_duration:duration uploader_id:underscore_id:usr checksum_ref:composite:random
        last_http_status:http_status upload_method:http_method title:free_text uploader_agent:user_agent
    """),
    _theme("metrics", "server_metrics experiment_results kpi_daily", "metric_id:numeric_id", """
        host:hostname instance_ip:ipv4 metric_ts:timestamp sample_date:date cpu_util:percentage
        mem_util:percentage disk_free_pct:percentage load_avg:float latency_p99_ms:float error_rate:scientific
        p_value:scientific effect_size:signed_number delta:signed_number request_count:integer:large
        error_count:integer:count uptime:duration region:cloud_region agent_version:version
        variant_name:status:experiment_lower is_significant:boolean experiment_id:underscore_id:exp
        owner_email:email temperature_c:float throughput:float host_socket:composite:host_port
        annotation:free_text datacenter_city:city analyst_name:person_name log_level:log_level
        exporter_port:port
    """),
)}
