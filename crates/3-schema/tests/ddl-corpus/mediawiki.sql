-- file: mediawiki/usr/share/mediawiki/maintenance/tables-generated.sql
CREATE TABLE /*_*/site_identifiers (
  si_type VARBINARY(32) NOT NULL,
  si_key VARBINARY(32) NOT NULL,
  si_site INT UNSIGNED NOT NULL,
  INDEX si_site (si_site),
  INDEX si_key (si_key),
  PRIMARY KEY(si_type, si_key)
) /*$wgDBTableOptions*/
;;
CREATE TABLE /*_*/updatelog (
  ul_key VARCHAR(255) NOT NULL,
  ul_value BLOB DEFAULT NULL,
  PRIMARY KEY(ul_key)
) /*$wgDBTableOptions*/
;;
CREATE TABLE /*_*/actor (
  actor_id BIGINT UNSIGNED AUTO_INCREMENT NOT NULL,
  actor_user INT UNSIGNED DEFAULT NULL,
  actor_name VARBINARY(255) NOT NULL,
  UNIQUE INDEX actor_user (actor_user),
  UNIQUE INDEX actor_name (actor_name),
  PRIMARY KEY(actor_id)
) /*$wgDBTableOptions*/
;;
CREATE TABLE /*_*/user_former_groups (
  ufg_user INT UNSIGNED DEFAULT 0 NOT NULL,
  ufg_group VARBINARY(255) DEFAULT '' NOT NULL,
  PRIMARY KEY(ufg_user, ufg_group)
) /*$wgDBTableOptions*/
;;
CREATE TABLE /*_*/bot_passwords (
  bp_user INT UNSIGNED NOT NULL,
  bp_app_id VARBINARY(32) NOT NULL,
  bp_password TINYBLOB NOT NULL,
  bp_token BINARY(32) DEFAULT '' NOT NULL,
  bp_restrictions BLOB NOT NULL,
  bp_grants BLOB NOT NULL,
  PRIMARY KEY(bp_user, bp_app_id)
) /*$wgDBTableOptions*/
;;
CREATE TABLE /*_*/comment (
  comment_id BIGINT UNSIGNED AUTO_INCREMENT NOT NULL,
  comment_hash INT NOT NULL,
  comment_text BLOB NOT NULL,
  comment_data BLOB DEFAULT NULL,
  INDEX comment_hash (comment_hash),
  PRIMARY KEY(comment_id)
) /*$wgDBTableOptions*/
;;
CREATE TABLE /*_*/slots (
  slot_revision_id BIGINT UNSIGNED NOT NULL,
  slot_role_id SMALLINT UNSIGNED NOT NULL,
  slot_content_id BIGINT UNSIGNED NOT NULL,
  slot_origin BIGINT UNSIGNED NOT NULL,
  INDEX slot_revision_origin_role (
    slot_revision_id, slot_origin, slot_role_id
  ),
  PRIMARY KEY(slot_revision_id, slot_role_id)
) /*$wgDBTableOptions*/
;;
CREATE TABLE /*_*/site_stats (
  ss_row_id INT UNSIGNED NOT NULL,
  ss_total_edits BIGINT UNSIGNED DEFAULT NULL,
  ss_good_articles BIGINT UNSIGNED DEFAULT NULL,
  ss_total_pages BIGINT UNSIGNED DEFAULT NULL,
  ss_users BIGINT UNSIGNED DEFAULT NULL,
  ss_active_users BIGINT UNSIGNED DEFAULT NULL,
  ss_images BIGINT UNSIGNED DEFAULT NULL,
  PRIMARY KEY(ss_row_id)
) /*$wgDBTableOptions*/
;;
CREATE TABLE /*_*/user_properties (
  up_user INT UNSIGNED NOT NULL,
  up_property VARBINARY(255) NOT NULL,
  up_value BLOB DEFAULT NULL,
  INDEX up_property (up_property),
  PRIMARY KEY(up_user, up_property)
) /*$wgDBTableOptions*/
;;
CREATE TABLE /*_*/log_search (
  ls_field VARBINARY(32) NOT NULL,
  ls_value VARCHAR(255) NOT NULL,
  ls_log_id INT UNSIGNED DEFAULT 0 NOT NULL,
  INDEX ls_log_id (ls_log_id),
  PRIMARY KEY(ls_field, ls_value, ls_log_id)
) /*$wgDBTableOptions*/
;;
CREATE TABLE /*_*/change_tag (
  ct_id INT UNSIGNED AUTO_INCREMENT NOT NULL,
  ct_rc_id INT UNSIGNED DEFAULT NULL,
  ct_log_id INT UNSIGNED DEFAULT NULL,
  ct_rev_id INT UNSIGNED DEFAULT NULL,
  ct_params BLOB DEFAULT NULL,
  ct_tag_id INT UNSIGNED NOT NULL,
  UNIQUE INDEX ct_rc_tag_id (ct_rc_id, ct_tag_id),
  UNIQUE INDEX ct_log_tag_id (ct_log_id, ct_tag_id),
  UNIQUE INDEX ct_rev_tag_id (ct_rev_id, ct_tag_id),
  INDEX ct_tag_id_id (
    ct_tag_id, ct_rc_id, ct_rev_id, ct_log_id
  ),
  PRIMARY KEY(ct_id)
) /*$wgDBTableOptions*/
;;
CREATE TABLE /*_*/content (
  content_id BIGINT UNSIGNED AUTO_INCREMENT NOT NULL,
  content_size INT UNSIGNED NOT NULL,
  content_sha1 VARBINARY(32) NOT NULL,
  content_model SMALLINT UNSIGNED NOT NULL,
  content_address VARBINARY(255) NOT NULL,
  PRIMARY KEY(content_id)
) /*$wgDBTableOptions*/
;;
CREATE TABLE /*_*/l10n_cache (
  lc_lang VARBINARY(35) NOT NULL,
  lc_key VARCHAR(255) NOT NULL,
  lc_value MEDIUMBLOB NOT NULL,
  PRIMARY KEY(lc_lang, lc_key)
) /*$wgDBTableOptions*/
;;
CREATE TABLE /*_*/module_deps (
  md_module VARBINARY(255) NOT NULL,
  md_skin VARBINARY(32) NOT NULL,
  md_deps MEDIUMBLOB NOT NULL,
  PRIMARY KEY(md_module, md_skin)
) /*$wgDBTableOptions*/
;;
CREATE TABLE /*_*/redirect (
  rd_from INT UNSIGNED DEFAULT 0 NOT NULL,
  rd_namespace INT DEFAULT 0 NOT NULL,
  rd_title VARBINARY(255) DEFAULT '' NOT NULL,
  rd_interwiki VARCHAR(32) DEFAULT NULL,
  rd_fragment VARBINARY(255) DEFAULT NULL,
  INDEX rd_ns_title (rd_namespace, rd_title, rd_from),
  PRIMARY KEY(rd_from)
) /*$wgDBTableOptions*/
;;
CREATE TABLE /*_*/pagelinks (
  pl_from INT UNSIGNED DEFAULT 0 NOT NULL,
  pl_namespace INT DEFAULT 0 NOT NULL,
  pl_title VARBINARY(255) DEFAULT '' NOT NULL,
  pl_from_namespace INT DEFAULT 0 NOT NULL,
  INDEX pl_namespace (pl_namespace, pl_title, pl_from),
  INDEX pl_backlinks_namespace (
    pl_from_namespace, pl_namespace,
    pl_title, pl_from
  ),
  PRIMARY KEY(pl_from, pl_namespace, pl_title)
) /*$wgDBTableOptions*/
;;
CREATE TABLE /*_*/templatelinks (
  tl_from INT UNSIGNED DEFAULT 0 NOT NULL,
  tl_target_id BIGINT UNSIGNED NOT NULL,
  tl_from_namespace INT DEFAULT 0 NOT NULL,
  INDEX tl_target_id (tl_target_id, tl_from),
  INDEX tl_backlinks_namespace_target_id (
    tl_from_namespace, tl_target_id,
    tl_from
  ),
  PRIMARY KEY(tl_from, tl_target_id)
) /*$wgDBTableOptions*/
;;
CREATE TABLE /*_*/imagelinks (
  il_from INT UNSIGNED DEFAULT 0 NOT NULL,
  il_to VARBINARY(255) DEFAULT '' NOT NULL,
  il_from_namespace INT DEFAULT 0 NOT NULL,
  INDEX il_to (il_to, il_from),
  INDEX il_backlinks_namespace (
    il_from_namespace, il_to, il_from
  ),
  PRIMARY KEY(il_from, il_to)
) /*$wgDBTableOptions*/
;;
CREATE TABLE /*_*/langlinks (
  ll_from INT UNSIGNED DEFAULT 0 NOT NULL,
  ll_lang VARBINARY(35) DEFAULT '' NOT NULL,
  ll_title VARBINARY(255) DEFAULT '' NOT NULL,
  INDEX ll_lang (ll_lang, ll_title),
  PRIMARY KEY(ll_from, ll_lang)
) /*$wgDBTableOptions*/
;;
CREATE TABLE /*_*/iwlinks (
  iwl_from INT UNSIGNED DEFAULT 0 NOT NULL,
  iwl_prefix VARBINARY(32) DEFAULT '' NOT NULL,
  iwl_title VARBINARY(255) DEFAULT '' NOT NULL,
  INDEX iwl_prefix_title_from (iwl_prefix, iwl_title, iwl_from),
  INDEX iwl_prefix_from_title (iwl_prefix, iwl_from, iwl_title),
  PRIMARY KEY(iwl_from, iwl_prefix, iwl_title)
) /*$wgDBTableOptions*/
;;
CREATE TABLE /*_*/category (
  cat_id INT UNSIGNED AUTO_INCREMENT NOT NULL,
  cat_title VARBINARY(255) NOT NULL,
  cat_pages INT DEFAULT 0 NOT NULL,
  cat_subcats INT DEFAULT 0 NOT NULL,
  cat_files INT DEFAULT 0 NOT NULL,
  UNIQUE INDEX cat_title (cat_title),
  INDEX cat_pages (cat_pages),
  PRIMARY KEY(cat_id)
) /*$wgDBTableOptions*/
;;
CREATE TABLE /*_*/watchlist_expiry (
  we_item INT UNSIGNED NOT NULL,
  we_expiry BINARY(14) NOT NULL,
  INDEX we_expiry (we_expiry),
  PRIMARY KEY(we_item)
) /*$wgDBTableOptions*/
;;
CREATE TABLE /*_*/change_tag_def (
  ctd_id INT UNSIGNED AUTO_INCREMENT NOT NULL,
  ctd_name VARBINARY(255) NOT NULL,
  ctd_user_defined TINYINT(1) NOT NULL,
  ctd_count BIGINT UNSIGNED DEFAULT 0 NOT NULL,
  UNIQUE INDEX ctd_name (ctd_name),
  INDEX ctd_count (ctd_count),
  INDEX ctd_user_defined (ctd_user_defined),
  PRIMARY KEY(ctd_id)
) /*$wgDBTableOptions*/
;;
CREATE TABLE /*_*/ipblocks_restrictions (
  ir_ipb_id INT UNSIGNED NOT NULL,
  ir_type TINYINT(4) NOT NULL,
  ir_value INT UNSIGNED NOT NULL,
  INDEX ir_type_value (ir_type, ir_value),
  PRIMARY KEY(ir_ipb_id, ir_type, ir_value)
) /*$wgDBTableOptions*/
;;
CREATE TABLE /*_*/querycache (
  qc_type VARBINARY(32) NOT NULL,
  qc_value INT UNSIGNED DEFAULT 0 NOT NULL,
  qc_namespace INT DEFAULT 0 NOT NULL,
  qc_title VARBINARY(255) DEFAULT '' NOT NULL,
  INDEX qc_type (qc_type, qc_value)
) /*$wgDBTableOptions*/
;;
CREATE TABLE /*_*/querycachetwo (
  qcc_type VARBINARY(32) NOT NULL,
  qcc_value INT UNSIGNED DEFAULT 0 NOT NULL,
  qcc_namespace INT DEFAULT 0 NOT NULL,
  qcc_title VARBINARY(255) DEFAULT '' NOT NULL,
  qcc_namespacetwo INT DEFAULT 0 NOT NULL,
  qcc_titletwo VARBINARY(255) DEFAULT '' NOT NULL,
  INDEX qcc_type (qcc_type, qcc_value),
  INDEX qcc_title (
    qcc_type, qcc_namespace, qcc_title
  ),
  INDEX qcc_titletwo (
    qcc_type, qcc_namespacetwo, qcc_titletwo
  )
) /*$wgDBTableOptions*/
;;
CREATE TABLE /*_*/page_restrictions (
  pr_id INT UNSIGNED AUTO_INCREMENT NOT NULL,
  pr_page INT UNSIGNED NOT NULL,
  pr_type VARBINARY(60) NOT NULL,
  pr_level VARBINARY(60) NOT NULL,
  pr_cascade TINYINT NOT NULL,
  pr_expiry VARBINARY(14) DEFAULT NULL,
  UNIQUE INDEX pr_pagetype (pr_page, pr_type),
  INDEX pr_typelevel (pr_type, pr_level),
  INDEX pr_level (pr_level),
  INDEX pr_cascade (pr_cascade),
  PRIMARY KEY(pr_id)
) /*$wgDBTableOptions*/
;;
CREATE TABLE /*_*/user_groups (
  ug_user INT UNSIGNED DEFAULT 0 NOT NULL,
  ug_group VARBINARY(255) DEFAULT '' NOT NULL,
  ug_expiry VARBINARY(14) DEFAULT NULL,
  INDEX ug_group (ug_group),
  INDEX ug_expiry (ug_expiry),
  PRIMARY KEY(ug_user, ug_group)
) /*$wgDBTableOptions*/
;;
CREATE TABLE /*_*/querycache_info (
  qci_type VARBINARY(32) DEFAULT '' NOT NULL,
  qci_timestamp BINARY(14) DEFAULT '19700101000000' NOT NULL,
  PRIMARY KEY(qci_type)
) /*$wgDBTableOptions*/
;;
CREATE TABLE /*_*/watchlist (
  wl_id INT UNSIGNED AUTO_INCREMENT NOT NULL,
  wl_user INT UNSIGNED NOT NULL,
  wl_namespace INT DEFAULT 0 NOT NULL,
  wl_title VARBINARY(255) DEFAULT '' NOT NULL,
  wl_notificationtimestamp BINARY(14) DEFAULT NULL,
  UNIQUE INDEX wl_user (wl_user, wl_namespace, wl_title),
  INDEX wl_namespace_title (wl_namespace, wl_title),
  INDEX wl_user_notificationtimestamp (
    wl_user, wl_notificationtimestamp
  ),
  PRIMARY KEY(wl_id)
) /*$wgDBTableOptions*/
;;
CREATE TABLE /*_*/sites (
  site_id INT UNSIGNED AUTO_INCREMENT NOT NULL,
  site_global_key VARBINARY(64) NOT NULL,
  site_type VARBINARY(32) NOT NULL,
  site_group VARBINARY(32) NOT NULL,
  site_source VARBINARY(32) NOT NULL,
  site_language VARBINARY(35) NOT NULL,
  site_protocol VARBINARY(32) NOT NULL,
  site_domain VARCHAR(255) NOT NULL,
  site_data BLOB NOT NULL,
  site_forward TINYINT(1) NOT NULL,
  site_config BLOB NOT NULL,
  UNIQUE INDEX site_global_key (site_global_key),
  INDEX site_type (site_type),
  INDEX site_group (site_group),
  INDEX site_source (site_source),
  INDEX site_language (site_language),
  INDEX site_protocol (site_protocol),
  INDEX site_domain (site_domain),
  INDEX site_forward (site_forward),
  PRIMARY KEY(site_id)
) /*$wgDBTableOptions*/
;;
CREATE TABLE /*_*/user_newtalk (
  user_id INT UNSIGNED DEFAULT 0 NOT NULL,
  user_ip VARBINARY(40) DEFAULT '' NOT NULL,
  user_last_timestamp BINARY(14) DEFAULT NULL,
  INDEX un_user_id (user_id),
  INDEX un_user_ip (user_ip)
) /*$wgDBTableOptions*/
;;
CREATE TABLE /*_*/interwiki (
  iw_prefix VARCHAR(32) NOT NULL,
  iw_url BLOB NOT NULL,
  iw_api BLOB NOT NULL,
  iw_wikiid VARCHAR(64) NOT NULL,
  iw_local TINYINT(1) NOT NULL,
  iw_trans TINYINT DEFAULT 0 NOT NULL,
  PRIMARY KEY(iw_prefix)
) /*$wgDBTableOptions*/
;;
CREATE TABLE /*_*/protected_titles (
  pt_namespace INT NOT NULL,
  pt_title VARBINARY(255) NOT NULL,
  pt_user INT UNSIGNED NOT NULL,
  pt_reason_id BIGINT UNSIGNED NOT NULL,
  pt_timestamp BINARY(14) NOT NULL,
  pt_expiry VARBINARY(14) NOT NULL,
  pt_create_perm VARBINARY(60) NOT NULL,
  INDEX pt_timestamp (pt_timestamp),
  PRIMARY KEY(pt_namespace, pt_title)
) /*$wgDBTableOptions*/
;;
CREATE TABLE /*_*/externallinks (
  el_id INT UNSIGNED AUTO_INCREMENT NOT NULL,
  el_from INT UNSIGNED DEFAULT 0 NOT NULL,
  el_to BLOB NOT NULL,
  el_index BLOB NOT NULL,
  el_index_60 VARBINARY(60) NOT NULL,
  INDEX el_from (
    el_from,
    el_to(40)
  ),
  INDEX el_to (
    el_to(60),
    el_from
  ),
  INDEX el_index (
    el_index(60)
  ),
  INDEX el_index_60 (el_index_60, el_id),
  INDEX el_from_index_60 (el_from, el_index_60, el_id),
  PRIMARY KEY(el_id)
) /*$wgDBTableOptions*/
;;
CREATE TABLE /*_*/ip_changes (
  ipc_rev_id INT UNSIGNED DEFAULT 0 NOT NULL,
  ipc_rev_timestamp BINARY(14) NOT NULL,
  ipc_hex VARBINARY(35) DEFAULT '' NOT NULL,
  INDEX ipc_rev_timestamp (ipc_rev_timestamp),
  INDEX ipc_hex_time (ipc_hex, ipc_rev_timestamp),
  PRIMARY KEY(ipc_rev_id)
) /*$wgDBTableOptions*/
;;
CREATE TABLE /*_*/revision_comment_temp (
  revcomment_rev INT UNSIGNED NOT NULL,
  revcomment_comment_id BIGINT UNSIGNED NOT NULL,
  UNIQUE INDEX revcomment_rev (revcomment_rev),
  PRIMARY KEY(
    revcomment_rev, revcomment_comment_id
  )
) /*$wgDBTableOptions*/
;;
CREATE TABLE /*_*/page_props (
  pp_page INT UNSIGNED NOT NULL,
  pp_propname VARBINARY(60) NOT NULL,
  pp_value BLOB NOT NULL,
  pp_sortkey FLOAT DEFAULT NULL,
  UNIQUE INDEX pp_propname_page (pp_propname, pp_page),
  UNIQUE INDEX pp_propname_sortkey_page (pp_propname, pp_sortkey, pp_page),
  PRIMARY KEY(pp_page, pp_propname)
) /*$wgDBTableOptions*/
;;
CREATE TABLE /*_*/job (
  job_id INT UNSIGNED AUTO_INCREMENT NOT NULL,
  job_cmd VARBINARY(60) DEFAULT '' NOT NULL,
  job_namespace INT NOT NULL,
  job_title VARBINARY(255) NOT NULL,
  job_timestamp BINARY(14) DEFAULT NULL,
  job_params MEDIUMBLOB NOT NULL,
  job_random INT UNSIGNED DEFAULT 0 NOT NULL,
  job_attempts INT UNSIGNED DEFAULT 0 NOT NULL,
  job_token VARBINARY(32) DEFAULT '' NOT NULL,
  job_token_timestamp BINARY(14) DEFAULT NULL,
  job_sha1 VARBINARY(32) DEFAULT '' NOT NULL,
  INDEX job_sha1 (job_sha1),
  INDEX job_cmd_token (job_cmd, job_token, job_random),
  INDEX job_cmd_token_id (job_cmd, job_token, job_id),
  INDEX job_cmd (
    job_cmd,
    job_namespace,
    job_title,
    job_params(128)
  ),
  INDEX job_timestamp (job_timestamp),
  PRIMARY KEY(job_id)
) /*$wgDBTableOptions*/
;;
CREATE TABLE /*_*/slot_roles (
  role_id INT AUTO_INCREMENT NOT NULL,
  role_name VARBINARY(64) NOT NULL,
  UNIQUE INDEX role_name (role_name),
  PRIMARY KEY(role_id)
) /*$wgDBTableOptions*/
;;
CREATE TABLE /*_*/content_models (
  model_id INT AUTO_INCREMENT NOT NULL,
  model_name VARBINARY(64) NOT NULL,
  UNIQUE INDEX model_name (model_name),
  PRIMARY KEY(model_id)
) /*$wgDBTableOptions*/
;;
CREATE TABLE /*_*/categorylinks (
  cl_from INT UNSIGNED DEFAULT 0 NOT NULL,
  cl_to VARBINARY(255) DEFAULT '' NOT NULL,
  cl_sortkey VARBINARY(230) DEFAULT '' NOT NULL,
  cl_sortkey_prefix VARBINARY(255) DEFAULT '' NOT NULL,
  cl_timestamp TIMESTAMP NOT NULL,
  cl_collation VARBINARY(32) DEFAULT '' NOT NULL,
  cl_type ENUM('page', 'subcat', 'file') DEFAULT 'page' NOT NULL,
  INDEX cl_sortkey (
    cl_to, cl_type, cl_sortkey, cl_from
  ),
  INDEX cl_timestamp (cl_to, cl_timestamp),
  INDEX cl_collation_ext (
    cl_collation, cl_to, cl_type, cl_from
  ),
  PRIMARY KEY(cl_from, cl_to)
) /*$wgDBTableOptions*/
;;
CREATE TABLE /*_*/logging (
  log_id INT UNSIGNED AUTO_INCREMENT NOT NULL,
  log_type VARBINARY(32) DEFAULT '' NOT NULL,
  log_action VARBINARY(32) DEFAULT '' NOT NULL,
  log_timestamp BINARY(14) DEFAULT '19700101000000' NOT NULL,
  log_actor BIGINT UNSIGNED NOT NULL,
  log_namespace INT DEFAULT 0 NOT NULL,
  log_title VARBINARY(255) DEFAULT '' NOT NULL,
  log_page INT UNSIGNED DEFAULT NULL,
  log_comment_id BIGINT UNSIGNED NOT NULL,
  log_params BLOB NOT NULL,
  log_deleted TINYINT UNSIGNED DEFAULT 0 NOT NULL,
  INDEX log_type_time (log_type, log_timestamp),
  INDEX log_actor_time (log_actor, log_timestamp),
  INDEX log_page_time (
    log_namespace, log_title, log_timestamp
  ),
  INDEX log_times (log_timestamp),
  INDEX log_actor_type_time (
    log_actor, log_type, log_timestamp
  ),
  INDEX log_page_id_time (log_page, log_timestamp),
  INDEX log_type_action (
    log_type, log_action, log_timestamp
  ),
  PRIMARY KEY(log_id)
) /*$wgDBTableOptions*/
;;
CREATE TABLE /*_*/uploadstash (
  us_id INT UNSIGNED AUTO_INCREMENT NOT NULL,
  us_user INT UNSIGNED NOT NULL,
  us_key VARCHAR(255) NOT NULL,
  us_orig_path VARCHAR(255) NOT NULL,
  us_path VARCHAR(255) NOT NULL,
  us_source_type VARCHAR(50) DEFAULT NULL,
  us_timestamp BINARY(14) NOT NULL,
  us_status VARCHAR(50) NOT NULL,
  us_chunk_inx INT UNSIGNED DEFAULT NULL,
  us_props BLOB DEFAULT NULL,
  us_size INT UNSIGNED NOT NULL,
  us_sha1 VARCHAR(31) NOT NULL,
  us_mime VARCHAR(255) DEFAULT NULL,
  us_media_type ENUM(
    'UNKNOWN', 'BITMAP', 'DRAWING', 'AUDIO',
    'VIDEO', 'MULTIMEDIA', 'OFFICE',
    'TEXT', 'EXECUTABLE', 'ARCHIVE',
    '3D'
  ) DEFAULT NULL,
  us_image_width INT UNSIGNED DEFAULT NULL,
  us_image_height INT UNSIGNED DEFAULT NULL,
  us_image_bits SMALLINT UNSIGNED DEFAULT NULL,
  INDEX us_user (us_user),
  UNIQUE INDEX us_key (us_key),
  INDEX us_timestamp (us_timestamp),
  PRIMARY KEY(us_id)
) /*$wgDBTableOptions*/
;;
CREATE TABLE /*_*/filearchive (
  fa_id INT UNSIGNED AUTO_INCREMENT NOT NULL,
  fa_name VARBINARY(255) DEFAULT '' NOT NULL,
  fa_archive_name VARBINARY(255) DEFAULT '',
  fa_storage_group VARBINARY(16) DEFAULT NULL,
  fa_storage_key VARBINARY(64) DEFAULT '',
  fa_deleted_user INT DEFAULT NULL,
  fa_deleted_timestamp BINARY(14) DEFAULT NULL,
  fa_deleted_reason_id BIGINT UNSIGNED NOT NULL,
  fa_size INT UNSIGNED DEFAULT 0,
  fa_width INT DEFAULT 0,
  fa_height INT DEFAULT 0,
  fa_metadata MEDIUMBLOB DEFAULT NULL,
  fa_bits INT DEFAULT 0,
  fa_media_type ENUM(
    'UNKNOWN', 'BITMAP', 'DRAWING', 'AUDIO',
    'VIDEO', 'MULTIMEDIA', 'OFFICE',
    'TEXT', 'EXECUTABLE', 'ARCHIVE',
    '3D'
  ) DEFAULT NULL,
  fa_major_mime ENUM(
    'unknown', 'application', 'audio',
    'image', 'text', 'video', 'message',
    'model', 'multipart', 'chemical'
  ) DEFAULT 'unknown',
  fa_minor_mime VARBINARY(100) DEFAULT 'unknown',
  fa_description_id BIGINT UNSIGNED NOT NULL,
  fa_actor BIGINT UNSIGNED NOT NULL,
  fa_timestamp BINARY(14) DEFAULT NULL,
  fa_deleted TINYINT UNSIGNED DEFAULT 0 NOT NULL,
  fa_sha1 VARBINARY(32) DEFAULT '' NOT NULL,
  INDEX fa_name (fa_name, fa_timestamp),
  INDEX fa_storage_group (
    fa_storage_group, fa_storage_key
  ),
  INDEX fa_deleted_timestamp (fa_deleted_timestamp),
  INDEX fa_actor_timestamp (fa_actor, fa_timestamp),
  INDEX fa_sha1 (
    fa_sha1(10)
  ),
  PRIMARY KEY(fa_id)
) /*$wgDBTableOptions*/
;;
CREATE TABLE /*_*/text (
  old_id INT UNSIGNED AUTO_INCREMENT NOT NULL,
  old_text MEDIUMBLOB NOT NULL,
  old_flags TINYBLOB NOT NULL,
  PRIMARY KEY(old_id)
) /*$wgDBTableOptions*/
;;
CREATE TABLE /*_*/oldimage (
  oi_name VARBINARY(255) DEFAULT '' NOT NULL,
  oi_archive_name VARBINARY(255) DEFAULT '' NOT NULL,
  oi_size INT UNSIGNED DEFAULT 0 NOT NULL,
  oi_width INT DEFAULT 0 NOT NULL,
  oi_height INT DEFAULT 0 NOT NULL,
  oi_bits INT DEFAULT 0 NOT NULL,
  oi_description_id BIGINT UNSIGNED NOT NULL,
  oi_actor BIGINT UNSIGNED NOT NULL,
  oi_timestamp BINARY(14) NOT NULL,
  oi_metadata MEDIUMBLOB NOT NULL,
  oi_media_type ENUM(
    'UNKNOWN', 'BITMAP', 'DRAWING', 'AUDIO',
    'VIDEO', 'MULTIMEDIA', 'OFFICE',
    'TEXT', 'EXECUTABLE', 'ARCHIVE',
    '3D'
  ) DEFAULT NULL,
  oi_major_mime ENUM(
    'unknown', 'application', 'audio',
    'image', 'text', 'video', 'message',
    'model', 'multipart', 'chemical'
  ) DEFAULT 'unknown' NOT NULL,
  oi_minor_mime VARBINARY(100) DEFAULT 'unknown' NOT NULL,
  oi_deleted TINYINT UNSIGNED DEFAULT 0 NOT NULL,
  oi_sha1 VARBINARY(32) DEFAULT '' NOT NULL,
  INDEX oi_actor_timestamp (oi_actor, oi_timestamp),
  INDEX oi_name_timestamp (oi_name, oi_timestamp),
  INDEX oi_name_archive_name (
    oi_name,
    oi_archive_name(14)
  ),
  INDEX oi_sha1 (
    oi_sha1(10)
  ),
  INDEX oi_timestamp (oi_timestamp)
) /*$wgDBTableOptions*/
;;
CREATE TABLE /*_*/objectcache (
  keyname VARBINARY(255) DEFAULT '' NOT NULL,
  value MEDIUMBLOB DEFAULT NULL,
  exptime BINARY(14) NOT NULL,
  modtoken VARCHAR(17) DEFAULT '00000000000000000' NOT NULL,
  flags INT UNSIGNED DEFAULT NULL,
  INDEX exptime (exptime),
  PRIMARY KEY(keyname)
) /*$wgDBTableOptions*/
;;
CREATE TABLE /*_*/ipblocks (
  ipb_id INT UNSIGNED AUTO_INCREMENT NOT NULL,
  ipb_address TINYBLOB NOT NULL,
  ipb_user INT UNSIGNED DEFAULT 0 NOT NULL,
  ipb_by_actor BIGINT UNSIGNED NOT NULL,
  ipb_reason_id BIGINT UNSIGNED NOT NULL,
  ipb_timestamp BINARY(14) NOT NULL,
  ipb_auto TINYINT(1) DEFAULT 0 NOT NULL,
  ipb_anon_only TINYINT(1) DEFAULT 0 NOT NULL,
  ipb_create_account TINYINT(1) DEFAULT 1 NOT NULL,
  ipb_enable_autoblock TINYINT(1) DEFAULT 1 NOT NULL,
  ipb_expiry VARBINARY(14) NOT NULL,
  ipb_range_start TINYBLOB NOT NULL,
  ipb_range_end TINYBLOB NOT NULL,
  ipb_deleted TINYINT(1) DEFAULT 0 NOT NULL,
  ipb_block_email TINYINT(1) DEFAULT 0 NOT NULL,
  ipb_allow_usertalk TINYINT(1) DEFAULT 0 NOT NULL,
  ipb_parent_block_id INT UNSIGNED DEFAULT NULL,
  ipb_sitewide TINYINT(1) DEFAULT 1 NOT NULL,
  UNIQUE INDEX ipb_address_unique (
    ipb_address(255),
    ipb_user,
    ipb_auto
  ),
  INDEX ipb_user (ipb_user),
  INDEX ipb_range (
    ipb_range_start(8),
    ipb_range_end(8)
  ),
  INDEX ipb_timestamp (ipb_timestamp),
  INDEX ipb_expiry (ipb_expiry),
  INDEX ipb_parent_block_id (ipb_parent_block_id),
  PRIMARY KEY(ipb_id)
) /*$wgDBTableOptions*/
;;
CREATE TABLE /*_*/image (
  img_name VARBINARY(255) DEFAULT '' NOT NULL,
  img_size INT UNSIGNED DEFAULT 0 NOT NULL,
  img_width INT DEFAULT 0 NOT NULL,
  img_height INT DEFAULT 0 NOT NULL,
  img_metadata MEDIUMBLOB NOT NULL,
  img_bits INT DEFAULT 0 NOT NULL,
  img_media_type ENUM(
    'UNKNOWN', 'BITMAP', 'DRAWING', 'AUDIO',
    'VIDEO', 'MULTIMEDIA', 'OFFICE',
    'TEXT', 'EXECUTABLE', 'ARCHIVE',
    '3D'
  ) DEFAULT NULL,
  img_major_mime ENUM(
    'unknown', 'application', 'audio',
    'image', 'text', 'video', 'message',
    'model', 'multipart', 'chemical'
  ) DEFAULT 'unknown' NOT NULL,
  img_minor_mime VARBINARY(100) DEFAULT 'unknown' NOT NULL,
  img_description_id BIGINT UNSIGNED NOT NULL,
  img_actor BIGINT UNSIGNED NOT NULL,
  img_timestamp BINARY(14) NOT NULL,
  img_sha1 VARBINARY(32) DEFAULT '' NOT NULL,
  INDEX img_actor_timestamp (img_actor, img_timestamp),
  INDEX img_size (img_size),
  INDEX img_timestamp (img_timestamp),
  INDEX img_sha1 (
    img_sha1(10)
  ),
  INDEX img_media_mime (
    img_media_type, img_major_mime, img_minor_mime
  ),
  PRIMARY KEY(img_name)
) /*$wgDBTableOptions*/
;;
CREATE TABLE /*_*/recentchanges (
  rc_id INT UNSIGNED AUTO_INCREMENT NOT NULL,
  rc_timestamp BINARY(14) NOT NULL,
  rc_actor BIGINT UNSIGNED NOT NULL,
  rc_namespace INT DEFAULT 0 NOT NULL,
  rc_title VARBINARY(255) DEFAULT '' NOT NULL,
  rc_comment_id BIGINT UNSIGNED NOT NULL,
  rc_minor TINYINT UNSIGNED DEFAULT 0 NOT NULL,
  rc_bot TINYINT UNSIGNED DEFAULT 0 NOT NULL,
  rc_new TINYINT UNSIGNED DEFAULT 0 NOT NULL,
  rc_cur_id INT UNSIGNED DEFAULT 0 NOT NULL,
  rc_this_oldid INT UNSIGNED DEFAULT 0 NOT NULL,
  rc_last_oldid INT UNSIGNED DEFAULT 0 NOT NULL,
  rc_type TINYINT UNSIGNED DEFAULT 0 NOT NULL,
  rc_source VARBINARY(16) DEFAULT '' NOT NULL,
  rc_patrolled TINYINT UNSIGNED DEFAULT 0 NOT NULL,
  rc_ip VARBINARY(40) DEFAULT '' NOT NULL,
  rc_old_len INT DEFAULT NULL,
  rc_new_len INT DEFAULT NULL,
  rc_deleted TINYINT UNSIGNED DEFAULT 0 NOT NULL,
  rc_logid INT UNSIGNED DEFAULT 0 NOT NULL,
  rc_log_type VARBINARY(255) DEFAULT NULL,
  rc_log_action VARBINARY(255) DEFAULT NULL,
  rc_params BLOB DEFAULT NULL,
  INDEX rc_timestamp (rc_timestamp),
  INDEX rc_namespace_title_timestamp (
    rc_namespace, rc_title, rc_timestamp
  ),
  INDEX rc_cur_id (rc_cur_id),
  INDEX rc_new_name_timestamp (
    rc_new, rc_namespace, rc_timestamp
  ),
  INDEX rc_ip (rc_ip),
  INDEX rc_ns_actor (rc_namespace, rc_actor),
  INDEX rc_actor (rc_actor, rc_timestamp),
  INDEX rc_name_type_patrolled_timestamp (
    rc_namespace, rc_type, rc_patrolled,
    rc_timestamp
  ),
  INDEX rc_this_oldid (rc_this_oldid),
  PRIMARY KEY(rc_id)
) /*$wgDBTableOptions*/
;;
CREATE TABLE /*_*/archive (
  ar_id INT UNSIGNED AUTO_INCREMENT NOT NULL,
  ar_namespace INT DEFAULT 0 NOT NULL,
  ar_title VARBINARY(255) DEFAULT '' NOT NULL,
  ar_comment_id BIGINT UNSIGNED NOT NULL,
  ar_actor BIGINT UNSIGNED NOT NULL,
  ar_timestamp BINARY(14) NOT NULL,
  ar_minor_edit TINYINT DEFAULT 0 NOT NULL,
  ar_rev_id INT UNSIGNED NOT NULL,
  ar_deleted TINYINT UNSIGNED DEFAULT 0 NOT NULL,
  ar_len INT UNSIGNED DEFAULT NULL,
  ar_page_id INT UNSIGNED DEFAULT NULL,
  ar_parent_id INT UNSIGNED DEFAULT NULL,
  ar_sha1 VARBINARY(32) DEFAULT '' NOT NULL,
  INDEX ar_name_title_timestamp (
    ar_namespace, ar_title, ar_timestamp
  ),
  INDEX ar_actor_timestamp (ar_actor, ar_timestamp),
  UNIQUE INDEX ar_revid_uniq (ar_rev_id),
  PRIMARY KEY(ar_id)
) /*$wgDBTableOptions*/
;;
CREATE TABLE /*_*/page (
  page_id INT UNSIGNED AUTO_INCREMENT NOT NULL,
  page_namespace INT NOT NULL,
  page_title VARBINARY(255) NOT NULL,
  page_is_redirect TINYINT UNSIGNED DEFAULT 0 NOT NULL,
  page_is_new TINYINT UNSIGNED DEFAULT 0 NOT NULL,
  page_random DOUBLE PRECISION UNSIGNED NOT NULL,
  page_touched BINARY(14) NOT NULL,
  page_links_updated VARBINARY(14) DEFAULT NULL,
  page_latest INT UNSIGNED NOT NULL,
  page_len INT UNSIGNED NOT NULL,
  page_content_model VARBINARY(32) DEFAULT NULL,
  page_lang VARBINARY(35) DEFAULT NULL,
  UNIQUE INDEX page_name_title (page_namespace, page_title),
  INDEX page_random (page_random),
  INDEX page_len (page_len),
  INDEX page_redirect_namespace_len (
    page_is_redirect, page_namespace,
    page_len
  ),
  PRIMARY KEY(page_id)
) /*$wgDBTableOptions*/
;;
CREATE TABLE /*_*/user (
  user_id INT UNSIGNED AUTO_INCREMENT NOT NULL,
  user_name VARBINARY(255) DEFAULT '' NOT NULL,
  user_real_name VARBINARY(255) DEFAULT '' NOT NULL,
  user_password TINYBLOB NOT NULL,
  user_newpassword TINYBLOB NOT NULL,
  user_newpass_time BINARY(14) DEFAULT NULL,
  user_email TINYTEXT NOT NULL,
  user_touched BINARY(14) NOT NULL,
  user_token BINARY(32) DEFAULT '' NOT NULL,
  user_email_authenticated BINARY(14) DEFAULT NULL,
  user_email_token BINARY(32) DEFAULT NULL,
  user_email_token_expires BINARY(14) DEFAULT NULL,
  user_registration BINARY(14) DEFAULT NULL,
  user_editcount INT UNSIGNED DEFAULT NULL,
  user_password_expires VARBINARY(14) DEFAULT NULL,
  UNIQUE INDEX user_name (user_name),
  INDEX user_email_token (user_email_token),
  INDEX user_email (
    user_email(50)
  ),
  PRIMARY KEY(user_id)
) /*$wgDBTableOptions*/
;;
CREATE TABLE /*_*/user_autocreate_serial (
  uas_shard INT UNSIGNED NOT NULL,
  uas_value INT UNSIGNED NOT NULL,
  PRIMARY KEY(uas_shard)
) /*$wgDBTableOptions*/
;;
CREATE TABLE /*_*/revision (
  rev_id INT UNSIGNED AUTO_INCREMENT NOT NULL,
  rev_page INT UNSIGNED NOT NULL,
  rev_comment_id BIGINT UNSIGNED DEFAULT 0 NOT NULL,
  rev_actor BIGINT UNSIGNED DEFAULT 0 NOT NULL,
  rev_timestamp BINARY(14) NOT NULL,
  rev_minor_edit TINYINT UNSIGNED DEFAULT 0 NOT NULL,
  rev_deleted TINYINT UNSIGNED DEFAULT 0 NOT NULL,
  rev_len INT UNSIGNED DEFAULT NULL,
  rev_parent_id INT UNSIGNED DEFAULT NULL,
  rev_sha1 VARBINARY(32) DEFAULT '' NOT NULL,
  INDEX rev_timestamp (rev_timestamp),
  INDEX rev_page_timestamp (rev_page, rev_timestamp),
  INDEX rev_actor_timestamp (rev_actor, rev_timestamp, rev_id),
  INDEX rev_page_actor_timestamp (
    rev_page, rev_actor, rev_timestamp
  ),
  PRIMARY KEY(rev_id)
) /*$wgDBTableOptions*/
;;
CREATE TABLE /*_*/searchindex (
  si_page INT UNSIGNED NOT NULL,
  si_title VARCHAR(255) DEFAULT '' NOT NULL,
  si_text MEDIUMTEXT NOT NULL,
  UNIQUE INDEX si_page (si_page),
  FULLTEXT INDEX si_title (si_title),
  FULLTEXT INDEX si_text (si_text)
) ENGINE = MyISAM DEFAULT CHARSET = utf8
;;
CREATE TABLE /*_*/linktarget (
  lt_id BIGINT UNSIGNED AUTO_INCREMENT NOT NULL,
  lt_namespace INT NOT NULL,
  lt_title VARBINARY(255) NOT NULL,
  UNIQUE INDEX lt_namespace_title (lt_namespace, lt_title),
  PRIMARY KEY(lt_id)
) /*$wgDBTableOptions*/
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-actor-actor_name-varbinary.sql
ALTER TABLE /*_*/actor MODIFY actor_name VARBINARY(255) NOT NULL
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-actor-table.sql
CREATE TABLE /*_*/actor (
  actor_id bigint unsigned NOT NULL PRIMARY KEY AUTO_INCREMENT,
  actor_user int unsigned,
  actor_name varchar(255) binary NOT NULL
) /*$wgDBTableOptions*/
;;
CREATE UNIQUE INDEX /*i*/actor_user ON /*_*/actor (actor_user)
;;
CREATE UNIQUE INDEX /*i*/actor_name ON /*_*/actor (actor_name)
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-ar_rev_id-not-null.sql
ALTER TABLE /*_*/archive
  CHANGE COLUMN ar_rev_id ar_rev_id int unsigned NOT NULL
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-archive-MCR.sql
ALTER TABLE /*_*/archive
	DROP COLUMN ar_text_id,
	DROP COLUMN ar_content_model,
	DROP COLUMN ar_content_format
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-archive-ar_actor.sql
ALTER TABLE /*_*/archive
  ALTER COLUMN ar_user_text SET DEFAULT '',
  ADD COLUMN ar_actor bigint unsigned NOT NULL DEFAULT 0 AFTER ar_user_text
;;
CREATE INDEX /*i*/ar_actor_timestamp ON /*_*/archive (ar_actor,ar_timestamp)
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-archive-ar_rev_id-unique.sql
CREATE UNIQUE INDEX /*i*/ar_revid_uniq ON /*_*/archive (ar_rev_id)
;;
DROP INDEX /*i*/ar_revid ON /*_*/archive
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-archive-ar_title-varbinary.sql
ALTER TABLE /*_*/archive
    MODIFY ar_title VARBINARY(255) DEFAULT '' NOT NULL
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-archive-drop-ar_comment.sql
ALTER TABLE /*_*/archive
  DROP COLUMN ar_comment,
  ALTER COLUMN ar_comment_id DROP DEFAULT
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-archive-rename-name_title_timestamp-index.sql
DROP  INDEX name_title_timestamp ON  /*_*/archive
;;
CREATE INDEX ar_name_title_timestamp ON  /*_*/archive (ar_namespace,ar_title,ar_timestamp)
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-category-cat_title-varbinary.sql
ALTER TABLE /*_*/category MODIFY cat_title VARBINARY(255) NOT NULL
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-categorylinks-cl_to-varbinary.sql
ALTER TABLE /*_*/categorylinks MODIFY cl_to VARBINARY(255) DEFAULT '' NOT NULL
;;
ALTER TABLE /*_*/categorylinks MODIFY cl_sortkey_prefix VARBINARY(255) DEFAULT '' NOT NULL
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-change_tag-change_tag_rc_tag_id.sql
CREATE UNIQUE INDEX /*i*/change_tag_rc_tag_id ON /*_*/change_tag (ct_rc_id,ct_tag_id)
;;
CREATE UNIQUE INDEX /*i*/change_tag_log_tag_id ON /*_*/change_tag (ct_log_id,ct_tag_id)
;;
CREATE UNIQUE INDEX /*i*/change_tag_rev_tag_id ON /*_*/change_tag (ct_rev_id,ct_tag_id)
;;
CREATE INDEX /*i*/change_tag_rc_tag_nonuniq ON /*_*/change_tag (ct_rc_id,ct_tag)
;;
CREATE INDEX /*i*/change_tag_log_tag_nonuniq ON /*_*/change_tag (ct_log_id,ct_tag)
;;
CREATE INDEX /*i*/change_tag_rev_tag_nonuniq ON /*_*/change_tag (ct_rev_id,ct_tag)
;;
DROP INDEX /*i*/change_tag_rc_tag ON /*_*/change_tag
;;
DROP INDEX /*i*/change_tag_log_tag ON /*_*/change_tag
;;
DROP INDEX /*i*/change_tag_rev_tag ON /*_*/change_tag
;;
ALTER TABLE /*_*/change_tag
  ALTER COLUMN ct_tag SET DEFAULT ''
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-change_tag-rename-indexes.sql
DROP  INDEX change_tag_rc_tag_id ON  /*_*/change_tag
;;
CREATE UNIQUE INDEX ct_rc_tag_id ON  /*_*/change_tag (ct_rc_id, ct_tag_id)
;;
DROP  INDEX change_tag_log_tag_id ON  /*_*/change_tag
;;
CREATE UNIQUE INDEX ct_log_tag_id ON  /*_*/change_tag (ct_log_id, ct_tag_id)
;;
DROP  INDEX change_tag_rev_tag_id ON  /*_*/change_tag
;;
CREATE UNIQUE INDEX ct_rev_tag_id ON  /*_*/change_tag (ct_rev_id, ct_tag_id)
;;
DROP  INDEX change_tag_tag_id_id ON  /*_*/change_tag
;;
CREATE INDEX ct_tag_id_id ON  /*_*/change_tag (    ct_tag_id, ct_rc_id, ct_rev_id, ct_log_id  )
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-change_tag-tag_id.sql
ALTER TABLE /*_*/change_tag
  ADD COLUMN ct_tag_id int unsigned NULL
;;
CREATE INDEX /*i*/change_tag_tag_id_id ON /*_*/change_tag (ct_tag_id,ct_rc_id,ct_rev_id,ct_log_id)
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-change_tag_def.sql
CREATE TABLE /*_*/change_tag_def (
    
    ctd_id int unsigned NOT NULL PRIMARY KEY AUTO_INCREMENT,
    
    ctd_name varbinary(255) NOT NULL,
    
    ctd_user_defined tinyint(1) NOT NULL,
    
    ctd_count bigint unsigned NOT NULL default 0
) /*$wgDBTableOptions*/
;;
CREATE UNIQUE INDEX /*i*/ctd_name ON /*_*/change_tag_def (ctd_name)
;;
CREATE INDEX /*i*/ctd_count ON /*_*/change_tag_def (ctd_count)
;;
CREATE INDEX /*i*/ctd_user_defined ON /*_*/change_tag_def (ctd_user_defined)
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-content.sql
CREATE TABLE /*_*/content (

  
  content_id bigint unsigned PRIMARY KEY AUTO_INCREMENT,

  
  content_size int unsigned NOT NULL,

  
  content_sha1 varbinary(32) NOT NULL,

  
  content_model smallint unsigned NOT NULL,

  
  content_address varbinary(255) NOT NULL
) /*$wgDBTableOptions*/
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-content_models-model_id.sql
ALTER TABLE /*_*/content_models
  MODIFY model_id INT AUTO_INCREMENT NOT NULL
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-content_models.sql
CREATE TABLE /*_*/content_models (
  model_id smallint PRIMARY KEY AUTO_INCREMENT,
  model_name varbinary(64) NOT NULL
) /*$wgDBTableOptions*/
;;
CREATE UNIQUE INDEX /*i*/model_name ON /*_*/content_models (model_name)
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-drop-ar_text.sql
ALTER TABLE /*_*/archive
  DROP COLUMN ar_text,
  DROP COLUMN ar_flags,
  CHANGE COLUMN ar_text_id ar_text_id int unsigned NOT NULL DEFAULT 0
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-drop-archive-ar_usertext_timestamp.sql
DROP INDEX ar_usertext_timestamp ON /*_*/archive
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-drop-archive-user-fields.sql
ALTER TABLE /*_*/archive
  DROP COLUMN ar_user,
  DROP COLUMN ar_user_text,
  ALTER COLUMN ar_actor DROP DEFAULT
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-drop-archive-usertext_timestamp.sql
DROP INDEX usertext_timestamp ON /*_*/archive
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-drop-ct_tag.sql
DROP  INDEX change_tag_rc_tag_nonuniq ON  /*_*/change_tag
;;
DROP  INDEX change_tag_log_tag_nonuniq ON  /*_*/change_tag
;;
DROP  INDEX change_tag_rev_tag_nonuniq ON  /*_*/change_tag
;;
DROP  INDEX change_tag_tag_id ON  /*_*/change_tag
;;
ALTER TABLE  /*_*/change_tag
DROP  ct_tag,
CHANGE  ct_tag_id ct_tag_id INT UNSIGNED NOT NULL
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-drop-filearchive-user-fields.sql
ALTER TABLE /*_*/filearchive
  DROP INDEX /*i*/fa_user_timestamp,
  DROP COLUMN fa_user,
  DROP COLUMN fa_user_text,
  ALTER COLUMN fa_actor DROP DEFAULT
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-drop-image-img_user_timestamp.sql
ALTER TABLE /*_*/image
  DROP INDEX /*i*/img_user_timestamp
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-drop-image-user-fields.sql
ALTER TABLE /*_*/image
  DROP INDEX /*i*/img_usertext_timestamp,
  DROP COLUMN img_user,
  DROP COLUMN img_user_text,
  ALTER COLUMN img_actor DROP DEFAULT
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-drop-ipblocks-user-fields.sql
ALTER TABLE /*_*/ipblocks
  DROP COLUMN ipb_by,
  DROP COLUMN ipb_by_text,
  ALTER COLUMN ipb_by_actor DROP DEFAULT
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-drop-logging-user-fields.sql
ALTER TABLE /*_*/logging
  DROP INDEX /*i*/user_time,
  DROP INDEX /*i*/log_user_type_time,
  DROP INDEX /*i*/log_user_text_type_time,
  DROP INDEX /*i*/log_user_text_time,
  DROP COLUMN log_user,
  DROP COLUMN log_user_text,
  ALTER COLUMN log_actor DROP DEFAULT
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-drop-oldimage-user-fields.sql
ALTER TABLE /*_*/oldimage
  DROP INDEX /*i*/oi_usertext_timestamp,
  DROP COLUMN oi_user,
  DROP COLUMN oi_user_text,
  ALTER COLUMN oi_actor DROP DEFAULT
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-drop-page_restrictions-pr_user.sql
ALTER TABLE  /*_*/page_restrictions
DROP  pr_user
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-drop-recentchanges-user-fields.sql
ALTER TABLE /*_*/recentchanges
  DROP INDEX /*i*/rc_ns_usertext,
  DROP INDEX /*i*/rc_user_text,
  DROP COLUMN rc_user,
  DROP COLUMN rc_user_text,
  ALTER COLUMN rc_actor DROP DEFAULT
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-drop-rev_page_id.sql
DROP  INDEX rev_page_id ON  /*_*/revision
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-extend-iwlinks-iwl_prefix.sql
ALTER TABLE  /*_*/iwlinks
CHANGE  iwl_prefix iwl_prefix VARBINARY(32) DEFAULT '' NOT NULL
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-filearchive-drop-fa_description.sql
ALTER TABLE /*_*/filearchive
  DROP COLUMN fa_deleted_reason,
  ALTER COLUMN fa_deleted_reason_id DROP DEFAULT,
  DROP COLUMN fa_description,
  ALTER COLUMN fa_description_id DROP DEFAULT
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-filearchive-fa_actor.sql
ALTER TABLE /*_*/filearchive
  ALTER COLUMN fa_user_text SET DEFAULT '',
  ADD COLUMN fa_actor bigint unsigned NOT NULL DEFAULT 0 AFTER fa_user_text
;;
CREATE INDEX /*i*/fa_actor_timestamp ON /*_*/filearchive (fa_actor,fa_timestamp)
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-filearchive-fa_id.sql
ALTER TABLE  /*_*/filearchive
CHANGE  fa_id fa_id INT UNSIGNED AUTO_INCREMENT NOT NULL
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-filearchive-fa_name.sql
ALTER TABLE /*_*/filearchive
    MODIFY fa_name VARBINARY(255) DEFAULT '' NOT NULL,
    MODIFY fa_archive_name VARBINARY(255) DEFAULT ''
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-image-drop-img_description.sql
ALTER TABLE /*_*/image
  DROP COLUMN img_description,
  ALTER COLUMN img_description_id DROP DEFAULT
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-image-img_actor.sql
ALTER TABLE /*_*/image
  ALTER COLUMN img_user_text SET DEFAULT '',
  ADD COLUMN img_actor bigint unsigned NOT NULL DEFAULT 0 AFTER img_user_text
;;
CREATE INDEX /*i*/img_actor_timestamp ON /*_*/image (img_actor, img_timestamp)
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-image-img_description_id.sql
ALTER TABLE /*_*/image
  ADD COLUMN img_description_id bigint unsigned NOT NULL DEFAULT 0 AFTER img_description
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-image-img_major_mime-default.sql
ALTER TABLE  /*_*/image
CHANGE img_major_mime img_major_mime ENUM(
    'unknown', 'application', 'audio',
    'image', 'text', 'video', 'message',
    'model', 'multipart', 'chemical'
  ) DEFAULT 'unknown' NOT NULL
;;
ALTER TABLE  /*_*/oldimage
CHANGE oi_major_mime oi_major_mime ENUM(
    'unknown', 'application', 'audio',
    'image', 'text', 'video', 'message',
    'model', 'multipart', 'chemical'
  ) DEFAULT 'unknown' NOT NULL
;;
ALTER TABLE  /*_*/filearchive
CHANGE fa_major_mime fa_major_mime ENUM(
    'unknown', 'application', 'audio',
    'image', 'text', 'video', 'message',
    'model', 'multipart', 'chemical'
  ) DEFAULT 'unknown'
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-image-img_name-varbinary.sql
ALTER TABLE /*_*/image MODIFY img_name VARBINARY(255) DEFAULT '' NOT NULL
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-image-img_timestamp.sql
ALTER TABLE /*_*/image
    MODIFY img_timestamp BINARY(14) NOT NULL
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-imagelinks-il_to-varbinary.sql
ALTER TABLE /*_*/imagelinks MODIFY il_to VARBINARY(255) NOT NULL default ''
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-interwiki-fix-pk.sql
ALTER TABLE /*_*/interwiki DROP KEY /*i*/iw_prefix, ADD PRIMARY KEY (iw_prefix)
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-ipb_sitewide.sql
ALTER TABLE /*$wgDBprefix*/ipblocks
  ADD ipb_sitewide bool NOT NULL default 1
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-ipblocks-drop-ipb_reason.sql
ALTER TABLE /*_*/ipblocks
  DROP COLUMN ipb_reason,
  ALTER COLUMN ipb_reason_id DROP DEFAULT
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-ipblocks-fix-ipb_address_unique.sql
ALTER TABLE /*_*/ipblocks
    DROP INDEX /*i*/ipb_address_unique,
    ADD UNIQUE INDEX /*i*/ipb_address_unique (ipb_address(255), ipb_user, ipb_auto)
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-ipblocks-ipb_by_actor.sql
ALTER TABLE /*_*/ipblocks
  ADD COLUMN ipb_by_actor bigint unsigned NOT NULL DEFAULT 0 AFTER ipb_by_text
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-ipblocks-ipb_id.sql
ALTER TABLE  /*_*/ipblocks
CHANGE  ipb_id ipb_id INT UNSIGNED AUTO_INCREMENT NOT NULL,
CHANGE  ipb_parent_block_id ipb_parent_block_id INT UNSIGNED DEFAULT NULL
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-ipblocks-rename-ipb_address.sql
ALTER TABLE /*_*/ipblocks
    DROP INDEX /*i*/ipb_address,
    ADD UNIQUE INDEX /*i*/ipb_address_unique (ipb_address(255), ipb_user, ipb_auto)
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-ipblocks_restrictions-ir_ipb_id.sql
ALTER TABLE  /*_*/ipblocks_restrictions
CHANGE  ir_ipb_id ir_ipb_id INT UNSIGNED NOT NULL
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-ipblocks_restrictions-ir_type.sql
ALTER TABLE /*_*/ipblocks_restrictions CHANGE COLUMN ir_type ir_type TINYINT(4) NOT NULL
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-ipblocks_restrictions-ir_value.sql
ALTER TABLE  /*_*/ipblocks_restrictions
CHANGE  ir_value ir_value INT UNSIGNED NOT NULL
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-ipblocks_restrictions-table.sql
CREATE TABLE /*_*/ipblocks_restrictions (
  ir_ipb_id int NOT NULL,
  ir_type tinyint NOT NULL,
  ir_value int NOT NULL,
  PRIMARY KEY (ir_ipb_id, ir_type, ir_value)
) /*$wgDBTableOptions*/
;;
CREATE INDEX /*i*/ir_type_value ON /*_*/ipblocks_restrictions (ir_type, ir_value)
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-iwlinks-iwl_title-varbinary.sql
ALTER TABLE /*_*/iwlinks MODIFY iwl_title VARBINARY(255) NOT NULL default ''
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-job-job_title-varbinary.sql
ALTER TABLE /*_*/job MODIFY job_title VARBINARY(255) NOT NULL
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-job-params-mediumblob.sql
ALTER TABLE /*$wgDBprefix*/job
MODIFY COLUMN job_params mediumblob NOT NULL
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-job_job_timestamp.sql
ALTER TABLE /*_*/job
  MODIFY job_timestamp BINARY(14)
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-job_job_token_timestamp.sql
ALTER TABLE /*_*/job
  MODIFY job_token_timestamp BINARY(14)
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-l10n_cache-lc_lang-35.sql
ALTER TABLE /*$wgDBprefix*/l10n_cache
	MODIFY `lc_lang`
	VARBINARY(35) NOT NULL
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-langlinks-ll_lang-35.sql
ALTER TABLE /*$wgDBprefix*/langlinks
	MODIFY `ll_lang`
	VARBINARY(35) NOT NULL DEFAULT ''
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-langlinks-ll_title-varbinary.sql
ALTER TABLE /*_*/langlinks MODIFY ll_title VARBINARY(255) NOT NULL default ''
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-linktarget.sql
CREATE TABLE /*_*/linktarget (
  lt_id BIGINT UNSIGNED AUTO_INCREMENT NOT NULL,
  lt_namespace INT NOT NULL,
  lt_title VARBINARY(255) NOT NULL,
  UNIQUE INDEX lt_namespace_title (lt_namespace, lt_title),
  PRIMARY KEY(lt_id)
) /*$wgDBTableOptions*/
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-logging-drop-log_comment.sql
ALTER TABLE /*_*/logging
  DROP COLUMN log_comment,
  ALTER COLUMN log_comment_id DROP DEFAULT
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-logging-drop-type-action-index.sql
DROP INDEX /*i*/type_action ON /*_*/logging
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-logging-log-type-action-index.sql
CREATE INDEX /*i*/log_type_action ON /*_*/logging(log_type, log_action, log_timestamp)
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-logging-log_actor.sql
ALTER TABLE /*_*/logging
  ADD COLUMN log_actor bigint unsigned NOT NULL DEFAULT 0 AFTER log_user_text
;;
CREATE INDEX /*i*/actor_time ON /*_*/logging (log_actor, log_timestamp)
;;
CREATE INDEX /*i*/log_actor_type_time ON /*_*/logging (log_actor, log_type, log_timestamp)
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-logging-log_title-varbinary.sql
ALTER TABLE /*_*/logging MODIFY log_title VARBINARY(255) DEFAULT '' NOT NULL
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-logging-rename-indexes.sql
DROP  INDEX type_time ON  /*_*/logging
;;
CREATE INDEX log_type_time ON  /*_*/logging (log_type, log_timestamp)
;;
DROP  INDEX actor_time ON  /*_*/logging
;;
CREATE INDEX log_actor_time ON  /*_*/logging (log_actor, log_timestamp)
;;
DROP  INDEX page_time ON  /*_*/logging
;;
CREATE INDEX log_page_time ON  /*_*/logging (    log_namespace, log_title, log_timestamp  )
;;
DROP  INDEX times ON  /*_*/logging
;;
CREATE INDEX log_times ON  /*_*/logging (log_timestamp)
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-nullable-ar_text.sql
ALTER TABLE /*_*/archive
  MODIFY COLUMN ar_text mediumblob NULL,
  MODIFY COLUMN ar_flags tinyblob NULL
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-objectcache-exptime-notnull.sql
ALTER TABLE /*_*/objectcache
  MODIFY exptime BINARY(14) NOT NULL
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-objectcache-modtoken.sql
ALTER TABLE  /*_*/objectcache
ADD  modtoken VARCHAR(17) DEFAULT '00000000000000000' NOT NULL,
ADD  flags INT UNSIGNED DEFAULT NULL
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-oldimage-drop-oi_description.sql
ALTER TABLE /*_*/oldimage
  DROP COLUMN oi_description,
  ALTER COLUMN oi_description_id DROP DEFAULT
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-oldimage-oi_actor.sql
ALTER TABLE /*_*/oldimage
  ALTER COLUMN oi_user_text SET DEFAULT '',
  ADD COLUMN oi_actor bigint unsigned NOT NULL DEFAULT 0 AFTER oi_user_text
;;
CREATE INDEX /*i*/oi_actor_timestamp ON /*_*/oldimage (oi_actor,oi_timestamp)
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-oldimage-oi_name-varbinary.sql
ALTER TABLE /*_*/oldimage MODIFY oi_name VARBINARY(255) DEFAULT '' NOT NULL,
    MODIFY oi_archive_name VARBINARY(255) DEFAULT '' NOT NULL
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-oldimage-oi_timestamp.sql
CREATE INDEX oi_timestamp ON /*_*/oldimage (oi_timestamp)
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-page-drop-page_restrictions.sql
ALTER TABLE  /*_*/page
DROP  page_restrictions
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-page-page_title-varbinary.sql
ALTER TABLE /*_*/page MODIFY page_title VARBINARY(255) NOT NULL
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-page-rename-name_title-index.sql
DROP  INDEX name_title ON  /*_*/page
;;
CREATE UNIQUE INDEX page_name_title ON  /*_*/page (page_namespace, page_title)
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-page_props-fix-pk.sql
ALTER TABLE /*_*/page_props DROP KEY /*i*/pp_page_propname, ADD PRIMARY KEY (pp_page,pp_propname)
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-page_props-pp_page.sql
ALTER TABLE  /*_*/page_props
CHANGE  pp_page pp_page INT UNSIGNED NOT NULL
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-page_restrictions-null.sql
ALTER TABLE /*_*/page
    CHANGE COLUMN page_restrictions page_restrictions TINYBLOB NULL
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-page_restrictions-pr_page.sql
ALTER TABLE  /*_*/page_restrictions
CHANGE  pr_page pr_page INT UNSIGNED NOT NULL
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-pagelinks-pl_title-varbinary.sql
ALTER TABLE /*_*/pagelinks MODIFY pl_title VARBINARY(255) NOT NULL default ''
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-protected_titles-drop-pt_reason.sql
ALTER TABLE /*_*/protected_titles
  DROP COLUMN pt_reason,
  ALTER COLUMN pt_reason_id DROP DEFAULT
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-protected_titles-fix-pk.sql
ALTER TABLE /*_*/protected_titles DROP KEY /*i*/pt_namespace_title, ADD PRIMARY KEY (pt_namespace,pt_title)
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-protected_titles-pt_title-varbinary.sql
ALTER TABLE /*_*/protected_titles MODIFY pt_title VARBINARY(255) NOT NULL
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-querycache-qc_title-varbinary.sql
ALTER TABLE /*_*/querycache MODIFY qc_title VARBINARY(255) DEFAULT '' NOT NULL
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-querycachetwo-qcc_title-varbinary.sql
ALTER TABLE /*_*/querycachetwo
  MODIFY qcc_title VARBINARY(255) DEFAULT '' NOT NULL,
  MODIFY qcc_titletwo VARBINARY(255) DEFAULT '' NOT NULL
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-recentchanges-drop-rc_comment.sql
ALTER TABLE /*_*/recentchanges
  DROP COLUMN rc_comment,
  ALTER COLUMN rc_comment_id DROP DEFAULT
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-recentchanges-nttindex.sql
DROP INDEX /*i*/rc_namespace_title ON /*_*/recentchanges
;;
CREATE INDEX /*i*/rc_namespace_title_timestamp ON /*_*/recentchanges (rc_namespace, rc_title, rc_timestamp)
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-recentchanges-rc_actor.sql
ALTER TABLE /*_*/recentchanges
  ALTER COLUMN rc_user_text SET DEFAULT '',
  ADD COLUMN rc_actor bigint unsigned NOT NULL DEFAULT 0 AFTER rc_user_text
;;
CREATE INDEX /*i*/rc_ns_actor ON /*_*/recentchanges (rc_namespace, rc_actor)
;;
CREATE INDEX /*i*/rc_actor ON /*_*/recentchanges (rc_actor, rc_timestamp)
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-recentchanges-rc_id.sql
ALTER TABLE  /*_*/recentchanges
CHANGE  rc_id rc_id INT UNSIGNED AUTO_INCREMENT NOT NULL
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-recentchanges-rc_new_name_timestamp.sql
DROP  INDEX new_name_timestamp ON  /*_*/recentchanges
;;
CREATE INDEX rc_new_name_timestamp ON  /*_*/recentchanges (    rc_new, rc_namespace, rc_timestamp  )
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-recentchanges-rc_this_oldid-index.sql
CREATE INDEX /*i*/rc_this_oldid ON /*_*/recentchanges(rc_this_oldid)
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-recentchanges-rc_timestamp.sql
ALTER TABLE /*_*/recentchanges
    MODIFY rc_timestamp BINARY(14) NOT NULL
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-recentchanges-rc_title-varbinary.sql
ALTER TABLE /*_*/recentchanges
    MODIFY rc_title VARBINARY(255) DEFAULT '' NOT NULL,
    MODIFY rc_source VARBINARY(16) DEFAULT '' NOT NULL
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-redirect-rd_title-varbinary.sql
ALTER TABLE /*_*/redirect MODIFY rd_title VARBINARY(255) NOT NULL default '',
	MODIFY rd_fragment VARBINARY(255) default NULL
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-rename-mysql-user_newtalk-indexes.sql
ALTER TABLE /*_*/user_newtalk
	DROP INDEX user_id,
	DROP INDEX user_ip,
	ADD INDEX un_user_id (user_id),
	ADD INDEX un_user_ip (user_ip)
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-revision-actor-comment-MCR.sql
ALTER TABLE /*_*/revision
	DROP INDEX /*i*/user_timestamp,
	DROP INDEX /*i*/page_user_timestamp,
	DROP INDEX /*i*/usertext_timestamp,
	DROP COLUMN rev_text_id,
	DROP COLUMN rev_comment,
	DROP COLUMN rev_user,
	DROP COLUMN rev_user_text,
	DROP COLUMN rev_content_model,
	DROP COLUMN rev_content_format
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-revision-rename-index.sql
DROP  INDEX page_timestamp ON  /*_*/revision
;;
CREATE INDEX rev_page_timestamp ON  /*_*/revision (rev_page, rev_timestamp)
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-revision-rev_actor.sql
ALTER TABLE /*_*/revision
	ADD COLUMN rev_comment_id bigint unsigned NOT NULL default 0 AFTER rev_page,
	ADD COLUMN rev_actor bigint unsigned NOT NULL default 0 AFTER rev_comment_id,
	ADD INDEX /*i*/rev_actor_timestamp (rev_actor,rev_timestamp,rev_id),
	ADD INDEX /*i*/rev_page_actor_timestamp (rev_page,rev_actor,rev_timestamp)
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-revision_actor_temp-table.sql
CREATE TABLE /*_*/revision_actor_temp (
  revactor_rev int unsigned NOT NULL,
  revactor_actor bigint unsigned NOT NULL,
  revactor_timestamp binary(14) NOT NULL default '',
  revactor_page int unsigned NOT NULL,
  PRIMARY KEY (revactor_rev, revactor_actor)
) /*$wgDBTableOptions*/
;;
CREATE UNIQUE INDEX /*i*/revactor_rev ON /*_*/revision_actor_temp (revactor_rev)
;;
CREATE INDEX /*i*/actor_timestamp ON /*_*/revision_actor_temp (revactor_actor,revactor_timestamp)
;;
CREATE INDEX /*i*/page_actor_timestamp ON /*_*/revision_actor_temp (revactor_page,revactor_actor,revactor_timestamp)
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-searchindex.sql
DROP TABLE IF EXISTS /*$wgDBprefix*/searchindex
;;
CREATE TABLE /*$wgDBprefix*/searchindex (
  
  si_page int unsigned NOT NULL,

  
  si_title varchar(255) NOT NULL default '',

  
  si_text mediumtext NOT NULL,

  UNIQUE KEY (si_page)

) ENGINE=MyISAM
;;
ALTER TABLE /*$wgDBprefix*/searchindex
  ADD FULLTEXT si_title (si_title),
  ADD FULLTEXT si_text (si_text)
;;
ALTER TABLE /*$wgDBprefix*/cur
  DROP COLUMN cur_ind_title,
  DROP COLUMN cur_ind_text
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-site_identifiers-fix-pk.sql
ALTER TABLE /*_*/site_identifiers DROP KEY /*i*/site_ids_type, ADD PRIMARY KEY (si_type,si_key)
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-site_identifiers-rename-indexes.sql
DROP  INDEX site_ids_site ON  /*_*/site_identifiers
;;
CREATE INDEX si_site ON  /*_*/site_identifiers (si_site)
;;
DROP  INDEX site_ids_key ON  /*_*/site_identifiers
;;
CREATE INDEX si_key ON  /*_*/site_identifiers (si_key)
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-site_stats-modify.sql
ALTER TABLE /*_*/site_stats
	ALTER ss_total_edits SET DEFAULT NULL,
	ALTER ss_good_articles SET DEFAULT NULL,
	MODIFY COLUMN ss_total_pages bigint unsigned DEFAULT NULL,
	MODIFY COLUMN ss_users bigint unsigned DEFAULT NULL,
	MODIFY COLUMN ss_active_users bigint unsigned DEFAULT NULL,
	MODIFY COLUMN ss_images bigint unsigned DEFAULT NULL
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-sites-rename-indexes.sql
DROP  INDEX sites_global_key ON  /*_*/sites
;;
CREATE UNIQUE INDEX site_global_key ON  /*_*/sites (site_global_key)
;;
DROP  INDEX sites_type ON  /*_*/sites
;;
CREATE INDEX site_type ON  /*_*/sites (site_type)
;;
DROP  INDEX sites_group ON  /*_*/sites
;;
CREATE INDEX site_group ON  /*_*/sites (site_group)
;;
DROP  INDEX sites_source ON  /*_*/sites
;;
CREATE INDEX site_source ON  /*_*/sites (site_source)
;;
DROP  INDEX sites_language ON  /*_*/sites
;;
CREATE INDEX site_language ON  /*_*/sites (site_language)
;;
DROP  INDEX sites_protocol ON  /*_*/sites
;;
CREATE INDEX site_protocol ON  /*_*/sites (site_protocol)
;;
DROP  INDEX sites_domain ON  /*_*/sites
;;
CREATE INDEX site_domain ON  /*_*/sites (site_domain)
;;
DROP  INDEX sites_forward ON  /*_*/sites
;;
CREATE INDEX site_forward ON  /*_*/sites (site_forward)
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-sites-site_global_key.sql
ALTER TABLE /*$wgDBprefix*/sites
	MODIFY `site_global_key` varbinary(64) NOT NULL
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-sites-site_language-35.sql
ALTER TABLE /*$wgDBprefix*/sites
	MODIFY `site_language`
	VARBINARY(35) NOT NULL
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-slot-origin.sql
DROP INDEX /*i*/slot_role_inherited ON /*_*/slots
;;
ALTER TABLE /*_*/slots
  DROP COLUMN slot_inherited,
  ADD COLUMN slot_origin bigint unsigned NOT NULL
;;
CREATE INDEX /*i*/slot_revision_origin_role ON /*_*/slots (slot_revision_id, slot_origin, slot_role_id)
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-slot_roles-role_id.sql
ALTER TABLE /*_*/slot_roles
  MODIFY role_id INT AUTO_INCREMENT NOT NULL
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-slot_roles.sql
CREATE TABLE /*_*/slot_roles (
  role_id smallint PRIMARY KEY AUTO_INCREMENT,
  role_name varbinary(64) NOT NULL
) /*$wgDBTableOptions*/
;;
CREATE UNIQUE INDEX /*i*/role_name ON /*_*/slot_roles (role_name)
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-slots.sql
CREATE TABLE /*_*/slots (

  
  slot_revision_id bigint unsigned NOT NULL,

  
  slot_role_id smallint unsigned NOT NULL,

  
  slot_content_id bigint unsigned NOT NULL,

  
  
  slot_origin bigint unsigned NOT NULL,

  PRIMARY KEY ( slot_revision_id, slot_role_id )
) /*$wgDBTableOptions*/
;;
CREATE INDEX /*i*/slot_revision_origin_role ON /*_*/slots (slot_revision_id, slot_origin, slot_role_id)
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-templatelinks-drop-tl_title.sql
DROP  INDEX tl_namespace ON  /*_*/templatelinks
;;
DROP  INDEX tl_backlinks_namespace ON  /*_*/templatelinks
;;
ALTER TABLE  /*_*/templatelinks
DROP  tl_namespace,
DROP  tl_title
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-templatelinks-target_id.sql
ALTER TABLE  /*_*/templatelinks
ADD  tl_target_id BIGINT UNSIGNED DEFAULT NULL
;;
CREATE INDEX tl_target_id ON  /*_*/templatelinks (tl_target_id, tl_from)
;;
CREATE INDEX tl_backlinks_namespace_target_id ON  /*_*/templatelinks (    tl_from_namespace, tl_target_id,    tl_from  )
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-templatelinks-tl_title-nullable.sql
ALTER TABLE  /*_*/templatelinks
DROP  PRIMARY KEY
;;
ALTER TABLE  /*_*/templatelinks
CHANGE  tl_target_id tl_target_id BIGINT UNSIGNED NOT NULL
;;
ALTER TABLE  /*_*/templatelinks
ADD  PRIMARY KEY (tl_from, tl_target_id)
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-templatelinks-tl_title-varbinary.sql
ALTER TABLE /*_*/templatelinks MODIFY tl_title VARBINARY(255) NOT NULL default ''
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-testrun.sql
drop table if exists /*$wgDBprefix*/testitem
;;
drop table if exists /*$wgDBprefix*/testrun
;;
create table /*$wgDBprefix*/testrun (
  tr_id int not null auto_increment,

  tr_date char(14) binary,
  tr_mw_version blob,
  tr_php_version blob,
  tr_db_version blob,
  tr_uname blob,

  primary key (tr_id)
) engine=InnoDB
;;
create table /*$wgDBprefix*/testitem (
  ti_run int not null,
  ti_name varchar(255),
  ti_success bool,

  unique key (ti_run, ti_name),
  key (ti_run, ti_success),

  foreign key (ti_run) references /*$wgDBprefix*/testrun(tr_id)
    on delete cascade
) engine=InnoDB
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-uploadstash-us_timestamp.sql
ALTER TABLE /*_*/uploadstash
  MODIFY us_timestamp BINARY(14) NOT NULL
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-user-user_editcount.sql
ALTER TABLE  /*_*/user
CHANGE  user_editcount user_editcount INT UNSIGNED DEFAULT NULL
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-user_autocreate_serial.sql
CREATE TABLE /*_*/user_autocreate_serial (
  uas_shard INT UNSIGNED NOT NULL,
  uas_value INT UNSIGNED NOT NULL,
  PRIMARY KEY(uas_shard)
) /*$wgDBTableOptions*/
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-user_newtalk-user_last_timestamp-binary.sql
ALTER TABLE /*_*/user_newtalk
  MODIFY user_last_timestamp BINARY(14)
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-user_properties-rename-index.sql
DROP  INDEX user_properties_property ON  /*_*/user_properties
;;
CREATE INDEX up_property ON  /*_*/user_properties (up_property)
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-user_table-updates.sql
ALTER TABLE  /*_*/user
CHANGE  user_name user_name VARBINARY(255) DEFAULT '' NOT NULL,
CHANGE  user_real_name user_real_name VARBINARY(255) DEFAULT '' NOT NULL,
CHANGE  user_touched user_touched BINARY(14) NOT NULL
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-watchlist-namespace_title-rename-index.sql
DROP  INDEX namespace_title ON  /*_*/watchlist
;;
CREATE INDEX wl_namespace_title ON  /*_*/watchlist (wl_namespace, wl_title)
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-watchlist-wl_notificationtimestamp.sql
ALTER TABLE /*_*/watchlist
  MODIFY wl_notificationtimestamp BINARY(14) DEFAULT NULL
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-watchlist-wl_title-varbinary.sql
ALTER TABLE /*_*/watchlist
  MODIFY wl_title VARBINARY(255) DEFAULT '' NOT NULL
;;
-- file: mediawiki/usr/share/mediawiki/maintenance/archives/patch-watchlist_expiry.sql
CREATE TABLE /*_*/watchlist_expiry (
  
  we_item int unsigned NOT NULL PRIMARY KEY,
  
  we_expiry binary(14) NOT NULL
) /*$wgDBTableOptions*/
;;
CREATE INDEX /*i*/we_expiry ON /*_*/watchlist_expiry (we_expiry)
;;
-- file: mediawiki/usr/share/mediawiki/extensions-core/AbuseFilter/db_patches/mysql/patch-drop_afl_log_id.sql
ALTER TABLE /*_*/abuse_filter_log
	DROP COLUMN afl_log_id
;;
-- file: mediawiki/usr/share/mediawiki/extensions-core/AbuseFilter/db_patches/mysql/patch-remove-afl_filter.sql
DROP INDEX /*i*/afl_filter_timestamp ON /*_*/abuse_filter_log
;;
ALTER TABLE /*_*/abuse_filter_log
	DROP COLUMN afl_filter,
	ALTER COLUMN afl_filter_id DROP DEFAULT,
	ALTER COLUMN afl_global DROP DEFAULT
;;
-- file: mediawiki/usr/share/mediawiki/extensions-core/AbuseFilter/db_patches/mysql/patch-rename-filter_timestamp-index.sql
ALTER TABLE /*_*/abuse_filter_log DROP INDEX /*i*/filter_timestamp
;;
CREATE INDEX /*i*/afl_filter_timestamp ON /*$wgDBprefix*/abuse_filter_log (afl_filter,afl_timestamp)
;;
-- file: mediawiki/usr/share/mediawiki/extensions-core/AbuseFilter/db_patches/mysql/patch-rename-indexes.sql
ALTER TABLE /*_*/abuse_filter
	DROP INDEX /*i*/af_group,
	ADD INDEX /*i*/af_group_enabled(af_group,af_enabled,af_id)
;;
ALTER TABLE /*_*/abuse_filter_log
	DROP INDEX /*i*/filter_timestamp_full,
	DROP INDEX /*i*/user_timestamp,
	DROP INDEX /*i*/page_timestamp,
	DROP INDEX /*i*/ip_timestamp
;;
CREATE INDEX /*i*/afl_filter_timestamp_full ON /*$wgDBprefix*/abuse_filter_log (afl_global,afl_filter_id,afl_timestamp)
;;
CREATE INDEX /*i*/afl_user_timestamp ON /*$wgDBprefix*/abuse_filter_log (afl_user,afl_user_text,afl_timestamp)
;;
CREATE INDEX /*i*/afl_page_timestamp ON /*$wgDBprefix*/abuse_filter_log (afl_namespace, afl_title, afl_timestamp)
;;
CREATE INDEX /*i*/afl_ip_timestamp ON /*$wgDBprefix*/abuse_filter_log (afl_ip, afl_timestamp)
;;
-- file: mediawiki/usr/share/mediawiki/extensions-core/AbuseFilter/db_patches/mysql/patch-rename-wiki-timestamp-index.sql
ALTER TABLE /*_*/abuse_filter_log DROP INDEX /*i*/wiki_timestamp
;;
CREATE INDEX /*i*/afl_wiki_timestamp ON /*$wgDBprefix*/abuse_filter_log (afl_wiki, afl_timestamp)
;;
-- file: mediawiki/usr/share/mediawiki/extensions-core/AbuseFilter/db_patches/mysql/patch-split-afl_filter.sql
ALTER TABLE /*_*/abuse_filter_log
	ADD COLUMN afl_global tinyint(1) NOT NULL DEFAULT 0 AFTER afl_filter,
	ADD COLUMN afl_filter_id BIGINT unsigned NOT NULL DEFAULT 0 AFTER afl_global,
	ALTER COLUMN afl_filter SET DEFAULT ''
;;
CREATE INDEX /*i*/afl_filter_timestamp_full ON /*_*/abuse_filter_log (afl_global,afl_filter_id,afl_timestamp)
;;
-- file: mediawiki/usr/share/mediawiki/extensions-core/AbuseFilter/db_patches/mysql/tables-generated.sql
CREATE TABLE /*_*/abuse_filter (
  af_id BIGINT UNSIGNED AUTO_INCREMENT NOT NULL,
  af_pattern BLOB NOT NULL,
  af_user BIGINT UNSIGNED NOT NULL,
  af_user_text VARBINARY(255) NOT NULL,
  af_timestamp BINARY(14) NOT NULL,
  af_enabled TINYINT(1) DEFAULT 1 NOT NULL,
  af_comments BLOB DEFAULT NULL,
  af_public_comments TINYBLOB DEFAULT NULL,
  af_hidden TINYINT(1) DEFAULT 0 NOT NULL,
  af_hit_count BIGINT DEFAULT 0 NOT NULL,
  af_throttled TINYINT(1) DEFAULT 0 NOT NULL,
  af_deleted TINYINT(1) DEFAULT 0 NOT NULL,
  af_actions VARCHAR(255) DEFAULT '' NOT NULL,
  af_global TINYINT(1) DEFAULT 0 NOT NULL,
  af_group VARBINARY(64) DEFAULT 'default' NOT NULL,
  INDEX af_user (af_user),
  INDEX af_group_enabled (af_group, af_enabled, af_id),
  PRIMARY KEY(af_id)
) /*$wgDBTableOptions*/
;;
CREATE TABLE /*_*/abuse_filter_action (
  afa_filter BIGINT UNSIGNED NOT NULL,
  afa_consequence VARCHAR(255) NOT NULL,
  afa_parameters TINYBLOB NOT NULL,
  INDEX afa_consequence (afa_consequence),
  PRIMARY KEY(afa_filter, afa_consequence)
) /*$wgDBTableOptions*/
;;
CREATE TABLE /*_*/abuse_filter_log (
  afl_id BIGINT UNSIGNED AUTO_INCREMENT NOT NULL,
  afl_global TINYINT(1) NOT NULL,
  afl_filter_id BIGINT UNSIGNED NOT NULL,
  afl_user BIGINT UNSIGNED NOT NULL,
  afl_user_text VARBINARY(255) NOT NULL,
  afl_ip VARCHAR(255) NOT NULL,
  afl_action VARBINARY(255) NOT NULL,
  afl_actions VARBINARY(255) NOT NULL,
  afl_var_dump BLOB NOT NULL,
  afl_timestamp BINARY(14) NOT NULL,
  afl_namespace INT NOT NULL,
  afl_title VARBINARY(255) NOT NULL,
  afl_wiki VARBINARY(64) DEFAULT NULL,
  afl_deleted TINYINT(1) DEFAULT 0 NOT NULL,
  afl_patrolled_by INT UNSIGNED DEFAULT 0 NOT NULL,
  afl_rev_id INT UNSIGNED DEFAULT NULL,
  INDEX afl_filter_timestamp_full (
    afl_global, afl_filter_id, afl_timestamp
  ),
  INDEX afl_user_timestamp (
    afl_user, afl_user_text, afl_timestamp
  ),
  INDEX afl_timestamp (afl_timestamp),
  INDEX afl_page_timestamp (
    afl_namespace, afl_title, afl_timestamp
  ),
  INDEX afl_ip_timestamp (afl_ip, afl_timestamp),
  INDEX afl_rev_id (afl_rev_id),
  INDEX afl_wiki_timestamp (afl_wiki, afl_timestamp),
  PRIMARY KEY(afl_id)
) /*$wgDBTableOptions*/
;;
CREATE TABLE /*_*/abuse_filter_history (
  afh_id BIGINT UNSIGNED AUTO_INCREMENT NOT NULL,
  afh_filter BIGINT UNSIGNED NOT NULL,
  afh_user BIGINT UNSIGNED NOT NULL,
  afh_user_text VARBINARY(255) NOT NULL,
  afh_timestamp BINARY(14) NOT NULL,
  afh_pattern BLOB NOT NULL,
  afh_comments BLOB NOT NULL,
  afh_flags TINYBLOB NOT NULL,
  afh_public_comments TINYBLOB DEFAULT NULL,
  afh_actions BLOB DEFAULT NULL,
  afh_deleted TINYINT(1) DEFAULT 0 NOT NULL,
  afh_changed_fields VARCHAR(255) DEFAULT '' NOT NULL,
  afh_group VARBINARY(64) DEFAULT NULL,
  INDEX afh_filter (afh_filter),
  INDEX afh_user (afh_user),
  INDEX afh_user_text (afh_user_text),
  INDEX afh_timestamp (afh_timestamp),
  PRIMARY KEY(afh_id)
) /*$wgDBTableOptions*/
;;
-- file: mediawiki/usr/share/mediawiki/extensions-core/Math/sql/mysql/mathlatexml.sql
CREATE TABLE /*_*/mathlatexml (
  math_inputhash VARBINARY(16) NOT NULL,
  math_inputtex TEXT NOT NULL,
  math_tex TEXT DEFAULT NULL,
  math_mathml MEDIUMTEXT DEFAULT NULL,
  math_svg TEXT DEFAULT NULL,
  math_style TINYINT DEFAULT NULL,
  PRIMARY KEY(math_inputhash)
) /*$wgDBTableOptions*/
;;
-- file: mediawiki/usr/share/mediawiki/extensions-core/Math/sql/mysql/mathoid.sql
CREATE TABLE /*_*/mathoid (
  math_inputhash VARBINARY(16) NOT NULL,
  math_input TEXT NOT NULL,
  math_tex TEXT DEFAULT NULL,
  math_mathml TEXT DEFAULT NULL,
  math_svg TEXT DEFAULT NULL,
  math_style TINYINT DEFAULT NULL,
  math_input_type TINYINT DEFAULT NULL,
  math_png MEDIUMBLOB DEFAULT NULL,
  PRIMARY KEY(math_inputhash)
) /*$wgDBTableOptions*/
;;
-- file: mediawiki/usr/share/mediawiki/extensions-core/Math/sql/mysql/patch-mathoid.add_png.sql
ALTER TABLE /*_*/mathoid ADD math_png mediumblob
;;
-- file: mediawiki/usr/share/mediawiki/extensions-core/OATHAuth/sql/mysql/patch-add_generic_fields.sql
ALTER TABLE /*_*/oathauth_users
	ADD module VARCHAR( 255 ) NOT NULL,
	ADD data BLOB NULL
;;
-- file: mediawiki/usr/share/mediawiki/extensions-core/OATHAuth/sql/mysql/patch-remove_module_specific_fields.sql
ALTER TABLE /*_*/oathauth_users
	DROP COLUMN secret,
	DROP COLUMN scratch_tokens
;;
-- file: mediawiki/usr/share/mediawiki/extensions-core/OATHAuth/sql/mysql/tables-generated.sql
CREATE TABLE /*_*/oathauth_users (
  id INT NOT NULL,
  module VARCHAR(255) NOT NULL,
  data BLOB DEFAULT NULL,
  PRIMARY KEY(id)
) /*$wgDBTableOptions*/
;;
