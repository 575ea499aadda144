-- file: tt-rss/usr/share/tt-rss/schema/ttrss_schema_mysql.sql
drop table if exists ttrss_error_log
;;
drop table if exists ttrss_plugin_storage
;;
drop table if exists ttrss_linked_feeds
;;
drop table if exists ttrss_linked_instances
;;
drop table if exists ttrss_access_keys
;;
drop table if exists ttrss_user_labels2
;;
drop table if exists ttrss_labels2
;;
drop table if exists ttrss_feedbrowser_cache
;;
drop table if exists ttrss_version
;;
drop table if exists ttrss_labels
;;
drop table if exists ttrss_filters2_actions
;;
drop table if exists ttrss_filters2_rules
;;
drop table if exists ttrss_filters2
;;
drop table if exists ttrss_filters
;;
drop table if exists ttrss_filter_types
;;
drop table if exists ttrss_filter_actions
;;
drop table if exists ttrss_user_prefs
;;
drop table if exists ttrss_prefs
;;
drop table if exists ttrss_prefs_types
;;
drop table if exists ttrss_prefs_sections
;;
drop table if exists ttrss_tags
;;
drop table if exists ttrss_enclosures
;;
drop table if exists ttrss_settings_profiles
;;
drop table if exists ttrss_entry_comments
;;
drop table if exists ttrss_user_entries
;;
drop table if exists ttrss_entries
;;
drop table if exists ttrss_scheduled_updates
;;
drop table if exists ttrss_counters_cache
;;
drop table if exists ttrss_cat_counters_cache
;;
drop table if exists ttrss_feeds
;;
drop table if exists ttrss_archived_feeds
;;
drop table if exists ttrss_feed_categories
;;
drop table if exists ttrss_app_passwords
;;
drop table if exists ttrss_users
;;
drop table if exists ttrss_themes
;;
drop table if exists ttrss_sessions
;;
create table ttrss_users (id integer primary key not null auto_increment,
	login varchar(120) not null unique,
	pwd_hash varchar(250) not null,
	last_login datetime default null,
	access_level integer not null default 0,
	email varchar(250) not null default '',
	full_name varchar(250) not null default '',
	email_digest bool not null default false,
	last_digest_sent datetime default null,
	salt varchar(250) not null default '',
	created datetime default null,
	twitter_oauth longtext default null,
	otp_enabled boolean not null default false,
	resetpass_token varchar(250) default null) ENGINE=InnoDB DEFAULT CHARSET=UTF8
;;
create table ttrss_app_passwords (id integer not null primary key auto_increment,
    title varchar(250) not null,
    pwd_hash text not null,
    service varchar(100) not null,
    created datetime not null,
    last_used datetime default null,
    owner_uid integer not null references ttrss_users(id) on delete cascade) ENGINE=InnoDB DEFAULT CHARSET=UTF8
;;
create table ttrss_feed_categories(id integer not null primary key auto_increment,
	owner_uid integer not null,
	title varchar(200) not null,
	collapsed bool not null default false,
	order_id integer not null default 0,
	parent_cat integer,
	view_settings varchar(250) not null default '',
	foreign key (parent_cat) references ttrss_feed_categories(id) ON DELETE SET NULL,
	foreign key (owner_uid) references ttrss_users(id) ON DELETE CASCADE) ENGINE=InnoDB DEFAULT CHARSET=UTF8
;;
create table ttrss_archived_feeds (id integer not null primary key,
	owner_uid integer not null,
	created datetime not null,
	title varchar(200) not null,
	feed_url text not null,
	site_url varchar(250) not null default '',
	foreign key (owner_uid) references ttrss_users(id) ON DELETE CASCADE) ENGINE=InnoDB DEFAULT CHARSET=UTF8
;;
create table ttrss_counters_cache (
	feed_id integer not null,
	owner_uid integer not null,
	value integer not null default 0,
	updated datetime not null,
	foreign key (owner_uid) references ttrss_users(id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=UTF8
;;
create index ttrss_counters_cache_feed_id_idx on ttrss_counters_cache(feed_id)
;;
create index ttrss_counters_cache_value_idx on ttrss_counters_cache(value)
;;
create table ttrss_cat_counters_cache (
	feed_id integer not null,
	owner_uid integer not null,
	value integer not null default 0,
	updated datetime not null,
	foreign key (owner_uid) references ttrss_users(id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=UTF8
;;
create table ttrss_feeds (id integer not null auto_increment primary key,
	owner_uid integer not null,
	title varchar(200) not null,
	cat_id integer default null,
	feed_url text not null,
	icon_url varchar(250) not null default '',
	update_interval integer not null default 0,
	purge_interval integer not null default 0,
	last_updated datetime default null,
	last_unconditional datetime default null,
	last_error varchar(250) not null default '',
	last_modified varchar(250) not null default '',
	favicon_avg_color varchar(11) default null,
	site_url varchar(250) not null default '',
	auth_login varchar(250) not null default '',
	auth_pass varchar(250) not null default '',
	parent_feed integer default null,
	private bool not null default false,
	rtl_content bool not null default false,
	hidden bool not null default false,
	include_in_digest boolean not null default true,
	cache_images boolean not null default false,
	hide_images boolean not null default false,
	cache_content boolean not null default false,
	auth_pass_encrypted boolean not null default false,
	last_viewed datetime default null,
	last_update_started datetime default null,
	last_successful_update datetime default null,
	always_display_enclosures boolean not null default false,
	update_method integer not null default 0,
	order_id integer not null default 0,
	mark_unread_on_update boolean not null default false,
	update_on_checksum_change boolean not null default false,
	strip_images boolean not null default false,
	view_settings varchar(250) not null default '',
	pubsub_state integer not null default 0,
	favicon_last_checked datetime default null,
	feed_language varchar(100) not null default '',
	foreign key (owner_uid) references ttrss_users(id) ON DELETE CASCADE,
	foreign key (cat_id) references ttrss_feed_categories(id) ON DELETE SET NULL,
	foreign key (parent_feed) references ttrss_feeds(id) ON DELETE SET NULL,
	unique(feed_url(255), owner_uid)) ENGINE=InnoDB DEFAULT CHARSET=UTF8
;;
create table ttrss_entries (id integer not null primary key auto_increment,
	title text not null,
	guid varchar(255) not null unique,
	link text not null,
	updated datetime not null,
	content longtext not null,
	content_hash varchar(250) not null,
	cached_content longtext,
	no_orig_date bool not null default 0,
	date_entered datetime not null,
	date_updated datetime not null,
	num_comments integer not null default 0,
	plugin_data longtext,
	lang varchar(2),
	comments varchar(250) not null default '',
	author varchar(250) not null default '') ENGINE=InnoDB DEFAULT CHARSET=UTF8
;;
create index ttrss_entries_date_entered_index on ttrss_entries(date_entered)
;;
create index ttrss_entries_updated_idx on ttrss_entries(updated)
;;
create table ttrss_user_entries (
	int_id integer not null primary key auto_increment,
	ref_id integer not null,
	uuid varchar(200) not null,
	feed_id int,
	orig_feed_id int,
	owner_uid integer not null,
	marked bool not null default 0,
	published bool not null default 0,
	tag_cache text not null,
	label_cache text not null,
	last_read datetime,
	score int not null default 0,
	note longtext,
	last_marked datetime,
	last_published datetime,
	unread bool not null default 1,
	foreign key (ref_id) references ttrss_entries(id) ON DELETE CASCADE,
	foreign key (feed_id) references ttrss_feeds(id) ON DELETE CASCADE,
	foreign key (orig_feed_id) references ttrss_archived_feeds(id) ON DELETE SET NULL,
	foreign key (owner_uid) references ttrss_users(id) ON DELETE CASCADE) ENGINE=InnoDB DEFAULT CHARSET=UTF8
;;
create index ttrss_user_entries_unread_idx on ttrss_user_entries(unread)
;;
create table ttrss_entry_comments (id integer not null primary key,
	ref_id integer not null,
	owner_uid integer not null,
	private bool not null default 0,
	date_entered datetime not null,
	index (ref_id),
	foreign key (ref_id) references ttrss_entries(id) ON DELETE CASCADE,
	index (owner_uid),
	foreign key (owner_uid) references ttrss_users(id) ON DELETE CASCADE) ENGINE=InnoDB DEFAULT CHARSET=UTF8
;;
create table ttrss_filter_types (id integer primary key,
	name varchar(120) unique not null,
	description varchar(250) not null unique) ENGINE=InnoDB DEFAULT CHARSET=UTF8
;;
create table ttrss_filter_actions (id integer not null primary key,
	name varchar(120) unique not null,
	description varchar(250) not null unique) ENGINE=InnoDB DEFAULT CHARSET=UTF8
;;
create table ttrss_filters2(id integer primary key auto_increment,
	owner_uid integer not null,
	match_any_rule boolean not null default false,
	enabled boolean not null default true,
	inverse bool not null default false,
	title varchar(250) not null default '',
	order_id integer not null default 0,
	last_triggered datetime default null,
	foreign key (owner_uid) references ttrss_users(id) ON DELETE CASCADE) ENGINE=InnoDB DEFAULT CHARSET=UTF8
;;
create table ttrss_filters2_rules(id integer primary key auto_increment,
	filter_id integer not null references ttrss_filters2(id) on delete cascade,
	reg_exp text not null,
	inverse bool not null default false,
	filter_type integer not null,
	feed_id integer default null,
	cat_id integer default null,
	cat_filter boolean not null default false,
	match_on text,
	index (filter_id),
	foreign key (filter_id) references ttrss_filters2(id) on delete cascade,
	index (filter_type),
	foreign key (filter_type) references ttrss_filter_types(id) ON DELETE CASCADE,
	index (feed_id),
	foreign key (feed_id) references ttrss_feeds(id) ON DELETE CASCADE,
	index (cat_id),
	foreign key (cat_id) references ttrss_feed_categories(id) ON DELETE CASCADE) ENGINE=InnoDB DEFAULT CHARSET=UTF8
;;
create table ttrss_filters2_actions(id integer primary key auto_increment,
	filter_id integer not null,
	action_id integer not null default 1 references ttrss_filter_actions(id) on delete cascade,
	action_param varchar(250) not null default '',
	index (filter_id),
	foreign key (filter_id) references ttrss_filters2(id) on delete cascade,
	index (action_id),
	foreign key (action_id) references ttrss_filter_actions(id) ON DELETE CASCADE) ENGINE=InnoDB DEFAULT CHARSET=UTF8
;;
create table ttrss_tags (id integer primary key auto_increment,
	owner_uid integer not null,
	tag_name varchar(250) not null,
	post_int_id integer not null,
	index (post_int_id),
	foreign key (post_int_id) references ttrss_user_entries(int_id) ON DELETE CASCADE,
	index (owner_uid),
	foreign key (owner_uid) references ttrss_users(id) ON DELETE CASCADE) ENGINE=InnoDB DEFAULT CHARSET=UTF8
;;
create table ttrss_version (schema_version int not null) ENGINE=InnoDB DEFAULT CHARSET=UTF8
;;
create table ttrss_enclosures (id integer primary key auto_increment,
	content_url text not null,
	content_type varchar(250) not null,
	post_id integer not null,
	title text not null,
	duration text not null,
	width integer not null default 0,
	height integer not null default 0,
	foreign key (post_id) references ttrss_entries(id) ON DELETE cascade) ENGINE=InnoDB DEFAULT CHARSET=UTF8
;;
create table ttrss_settings_profiles(id integer primary key auto_increment,
	title varchar(250) not null,
	owner_uid integer not null,
	index (owner_uid),
	foreign key (owner_uid) references ttrss_users(id) ON DELETE CASCADE) ENGINE=InnoDB DEFAULT CHARSET=UTF8
;;
create table ttrss_prefs_types (id integer not null primary key,
	type_name varchar(100) not null) ENGINE=InnoDB DEFAULT CHARSET=UTF8
;;
create table ttrss_prefs_sections (id integer not null primary key,
	order_id integer not null) ENGINE=InnoDB DEFAULT CHARSET=UTF8
;;
create table ttrss_prefs (pref_name varchar(250) not null primary key,
	type_id integer not null,
	section_id integer not null default 1,
	access_level integer not null default 0,
	def_value text not null,
	foreign key (type_id) references ttrss_prefs_types(id),
	foreign key (section_id) references ttrss_prefs_sections(id)) ENGINE=InnoDB DEFAULT CHARSET=UTF8
;;
create table ttrss_user_prefs (
   owner_uid integer not null,
   pref_name varchar(250),
   value longtext not null,
	profile integer,
	index (profile),
  	foreign key (profile) references ttrss_settings_profiles(id) ON DELETE CASCADE,
 	foreign key (owner_uid) references ttrss_users(id) ON DELETE CASCADE,
	foreign key (pref_name) references ttrss_prefs(pref_name) ON DELETE CASCADE) ENGINE=InnoDB DEFAULT CHARSET=UTF8
;;
create table ttrss_sessions (id varchar(250) not null primary key,
	data text,
	expire integer not null,
	index (expire)) ENGINE=InnoDB DEFAULT CHARSET=UTF8
;;
create table ttrss_feedbrowser_cache (
	feed_url text not null,
	site_url text not null,
	title text not null,
	subscribers integer not null) ENGINE=InnoDB DEFAULT CHARSET=UTF8
;;
create table ttrss_labels2 (id integer not null primary key auto_increment,
	owner_uid integer not null,
	caption varchar(250) not null,
	fg_color varchar(15) not null default '',
	bg_color varchar(15) not null default '',
	foreign key (owner_uid) references ttrss_users(id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=UTF8
;;
create table ttrss_user_labels2 (label_id integer not null,
	article_id integer not null,
	foreign key (label_id) references ttrss_labels2(id) ON DELETE CASCADE,
	foreign key (article_id) references ttrss_entries(id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=UTF8
;;
create table ttrss_access_keys (id integer not null primary key auto_increment,
	access_key varchar(250) not null,
	feed_id varchar(250) not null,
	is_cat bool not null default false,
	owner_uid integer not null,
  	foreign key (owner_uid) references ttrss_users(id) ON DELETE CASCADE) ENGINE=InnoDB DEFAULT CHARSET=UTF8
;;
create table ttrss_linked_instances (id integer not null primary key auto_increment,
	last_connected datetime not null,
	last_status_in integer not null,
	last_status_out integer not null,
	access_key varchar(250) not null unique,
	access_url text not null) ENGINE=InnoDB DEFAULT CHARSET=UTF8
;;
create table ttrss_linked_feeds (
	feed_url text not null,
	site_url text not null,
	title text not null,
	created datetime not null,
	updated datetime not null,
	instance_id integer not null,
	subscribers integer not null,
 	foreign key (instance_id) references ttrss_linked_instances(id) ON DELETE CASCADE) ENGINE=InnoDB DEFAULT CHARSET=UTF8
;;
create table ttrss_plugin_storage (
	id integer not null auto_increment primary key,
	name varchar(100) not null,
	owner_uid integer not null,
	content longtext not null,
  	foreign key (owner_uid) references ttrss_users(id) ON DELETE CASCADE) ENGINE=InnoDB DEFAULT CHARSET=UTF8
;;
create table ttrss_error_log(
	id integer not null auto_increment primary key,
	owner_uid integer,
	errno integer not null,
	errstr text not null,
	filename text not null,
	lineno integer not null,
	context text not null,
	created_at datetime not null,
	foreign key (owner_uid) references ttrss_users(id) ON DELETE SET NULL) ENGINE=InnoDB DEFAULT CHARSET=UTF8
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/3.sql
alter table ttrss_entries add column num_comments integer
;;
alter table ttrss_entries change num_comments num_comments integer not null
;;
alter table ttrss_entries alter column num_comments set default 0
;;
alter table ttrss_feed_categories add column collapsed bool
;;
alter table ttrss_feed_categories change collapsed collapsed bool not null
;;
alter table ttrss_feed_categories alter column collapsed set default 0
;;
alter table ttrss_feeds add column auth_login varchar(250)
;;
alter table ttrss_feeds add column auth_pass varchar(250)
;;
alter table ttrss_feeds change auth_login auth_login varchar(250) not null
;;
alter table ttrss_feeds alter column auth_login set default ''
;;
alter table ttrss_feeds change auth_pass auth_pass varchar(250) not null
;;
alter table ttrss_feeds alter column auth_pass set default ''
;;
alter table ttrss_users add column email varchar(250)
;;
alter table ttrss_users change email email varchar(250) not null
;;
alter table ttrss_users alter column email set default ''
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/4.sql
alter table ttrss_feeds add column parent_feed integer
;;
alter table ttrss_feeds add foreign key (parent_feed) references ttrss_feeds(id) on delete set null
;;
alter table ttrss_feeds add column private bool
;;
alter table ttrss_feeds change private private bool not null
;;
alter table ttrss_feeds alter column private set default 0
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/5.sql
create table ttrss_scheduled_updates (id integer not null primary key auto_increment,
	owner_uid integer not null,
	feed_id integer default null,
	entered datetime not null,
	foreign key (owner_uid) references ttrss_users(id) ON DELETE CASCADE,
	foreign key (feed_id) references ttrss_feeds(id) ON DELETE CASCADE) ENGINE=InnoDB
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/6.sql
alter table ttrss_entries add column author varchar(250)
;;
alter table ttrss_entries change author author varchar(250) not null
;;
alter table ttrss_entries alter column author set default ''
;;
create table ttrss_sessions (id varchar(250) not null primary key,
	data text,
	expire integer not null,
	ip_address varchar(15) not null default '',
	index (id),
	index (expire)) ENGINE=InnoDB
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/7.sql
alter table ttrss_feeds add column rtl_content bool
;;
alter table ttrss_feeds change rtl_content rtl_content bool not null
;;
alter table ttrss_feeds alter column rtl_content set default false
;;
alter table ttrss_sessions drop column ip_address
;;
alter table ttrss_filters drop column description
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/9.sql
alter table ttrss_feeds add column hidden bool
;;
alter table ttrss_feeds change hidden hidden bool not null
;;
alter table ttrss_feeds alter column hidden set default false
;;
alter table ttrss_users add column email_digest bool
;;
alter table ttrss_users change email_digest email_digest bool not null
;;
alter table ttrss_users alter column email_digest set default false
;;
alter table ttrss_users add column last_digest_sent datetime
;;
alter table ttrss_users alter column last_digest_sent set default null
;;
alter table ttrss_filters add column enabled bool
;;
alter table ttrss_filters change enabled enabled bool not null
;;
alter table ttrss_filters alter column enabled set default true
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/10.sql
alter table ttrss_feeds add column include_in_digest bool
;;
alter table ttrss_feeds change include_in_digest include_in_digest bool not null
;;
alter table ttrss_feeds alter column include_in_digest set default true
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/12.sql
alter table ttrss_filters add column action_param varchar(200)
;;
alter table ttrss_filters change action_param action_param varchar(200) not null
;;
alter table ttrss_filters alter column action_param set default ''
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/13.sql
alter table ttrss_filters add column inverse bool
;;
alter table ttrss_filters change inverse inverse bool not null
;;
alter table ttrss_filters alter column inverse set default false
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/16.sql
alter table ttrss_feeds add column auth_pass_encrypted bool
;;
alter table ttrss_feeds change auth_pass_encrypted auth_pass_encrypted bool not null
;;
alter table ttrss_feeds alter column auth_pass_encrypted set default false
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/19.sql
alter table ttrss_user_entries add column published bool
;;
alter table ttrss_user_entries change published published bool not null
;;
alter table ttrss_user_entries alter column published set default false
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/22.sql
create index ttrss_entries_date_entered_index on ttrss_entries(date_entered)
;;
alter table ttrss_feeds add column cache_images bool
;;
alter table ttrss_feeds change cache_images cache_images bool not null
;;
alter table ttrss_feeds alter column cache_images set default false
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/26.sql
alter table ttrss_users add column created datetime
;;
alter table ttrss_users alter column created set default null
;;
create table ttrss_enclosures (id serial not null primary key,
   content_url text not null,
   content_type varchar(250) not null,
   post_id integer not null, 
	title text not null,
	duration text not null,
   index (post_id),
   foreign key (post_id) references ttrss_entries(id) ON DELETE cascade)
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/27.sql
alter table ttrss_feeds add column last_viewed datetime
;;
alter table ttrss_feeds alter column last_viewed set default null
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/30.sql
alter table ttrss_feeds add column last_update_started datetime
;;
alter table ttrss_feeds alter column last_update_started set default null
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/31.sql
alter table ttrss_feeds add column update_method integer
;;
alter table ttrss_feeds change update_method update_method integer not null
;;
alter table ttrss_feeds alter column update_method set default 0
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/32.sql
alter table ttrss_prefs add column access_level integer
;;
alter table ttrss_prefs change access_level access_level integer not null
;;
alter table ttrss_prefs alter column access_level set default 0
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/34.sql
alter table ttrss_feeds change feed_url feed_url text not null
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/36.sql
alter table ttrss_user_entries add column score integer
;;
alter table ttrss_user_entries change score score integer not null
;;
alter table ttrss_user_entries alter column score set default 0
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/41.sql
alter table ttrss_feed_categories add column order_id integer
;;
alter table ttrss_feed_categories change order_id order_id integer not null
;;
alter table ttrss_feed_categories alter column order_id set default 0
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/43.sql
alter table ttrss_labels change sql_exp sql_exp text not null
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/44.sql
create table ttrss_counters_cache (
	feed_id integer not null,
	owner_uid integer not null,
	value integer not null default 0,
	foreign key (feed_id) references ttrss_feeds(id) ON DELETE CASCADE,
	foreign key (owner_uid) references ttrss_users(id) ON DELETE CASCADE
)
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/47.sql
alter table ttrss_filters add column filter_param varchar(200)
;;
alter table ttrss_filters change filter_param filter_param varchar(200) not null
;;
alter table ttrss_filters alter column filter_param set default ''
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/48.sql
create table ttrss_feedbrowser_cache (
	feed_url text not null,
	subscribers integer not null)
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/49.sql
alter table ttrss_counters_cache add column updated datetime
;;
alter table ttrss_counters_cache change updated updated datetime not null
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/50.sql
drop table if exists ttrss_counters_cache
;;
create table ttrss_counters_cache (
	feed_id integer not null,
	owner_uid integer not null,
	value integer not null default 0,
	updated datetime not null,
	foreign key (owner_uid) references ttrss_users(id) ON DELETE CASCADE
)
;;
create table ttrss_cat_counters_cache (
	feed_id integer not null,
	owner_uid integer not null,
	value integer not null default 0,
	updated datetime not null,
	foreign key (owner_uid) references ttrss_users(id) ON DELETE CASCADE
)
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/51.sql
create table ttrss_labels2 (id integer not null primary key auto_increment, 
	owner_uid integer not null,
	caption varchar(250) not null,
	foreign key (owner_uid) references ttrss_users(id) ON DELETE CASCADE
) ENGINE=InnoDB
;;
create table ttrss_user_labels2 (label_id integer not null,
	article_id integer not null,
	foreign key (label_id) references ttrss_labels2(id) ON DELETE CASCADE,
	foreign key (article_id) references ttrss_entries(id) ON DELETE CASCADE
) ENGINE=InnoDB
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/52.sql
alter table ttrss_feedbrowser_cache add column title text
;;
alter table ttrss_feedbrowser_cache change title title text not null
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/53.sql
alter table ttrss_labels2 add column fg_color varchar(15)
;;
alter table ttrss_labels2 change fg_color fg_color varchar(15) not null
;;
alter table ttrss_labels2 alter column fg_color set default ''
;;
alter table ttrss_labels2 add column bg_color varchar(15)
;;
alter table ttrss_labels2 change bg_color bg_color varchar(15) not null
;;
alter table ttrss_labels2 alter column bg_color set default ''
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/55.sql
alter table ttrss_user_entries add column note text
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/56.sql
drop table ttrss_enclosures
;;
create table ttrss_enclosures (id serial not null primary key,
	content_url text not null,
	content_type varchar(250) not null,
	post_id integer not null,
	title text not null,
	duration text not null,
	index (post_id),
	foreign key (post_id) references ttrss_entries(id) ON DELETE cascade) ENGINE=InnoDB
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/57.sql
alter table ttrss_feeds add column always_display_enclosures boolean
;;
alter table ttrss_feeds change always_display_enclosures always_display_enclosures boolean not null
;;
alter table ttrss_feeds alter column always_display_enclosures set default false
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/60.sql
alter table ttrss_user_entries change feed_id feed_id integer null
;;
create table ttrss_archived_feeds (id integer not null primary key,
	owner_uid integer not null,
	title varchar(200) not null, 
	feed_url text not null, 
	site_url varchar(250) not null default '',
	index(owner_uid),
	foreign key (owner_uid) references ttrss_users(id) ON DELETE CASCADE) ENGINE=InnoDB
;;
alter table ttrss_user_entries add column orig_feed_id integer
;;
alter table ttrss_user_entries add FOREIGN KEY (orig_feed_id) REFERENCES ttrss_archived_feeds(id) ON DELETE SET NULL
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/63.sql
create table ttrss_settings_profiles(id integer primary key auto_increment,
	title varchar(250) not null,
	owner_uid integer not null,
	index (owner_uid),
	foreign key (owner_uid) references ttrss_users(id) ON DELETE CASCADE) ENGINE=InnoDB
;;
alter table ttrss_user_prefs add column profile integer
;;
alter table ttrss_user_prefs add FOREIGN KEY (profile) REFERENCES ttrss_settings_profiles(id) ON DELETE CASCADE
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/67.sql
alter table ttrss_entries add column date_updated datetime
;;
alter table ttrss_entries change date_updated date_updated datetime not null
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/69.sql
create table ttrss_access_keys (id serial not null primary key,
	access_key varchar(250) not null,
	feed_id varchar(250) not null,
	is_cat bool not null default false,
	owner_uid integer not null,
  	foreign key (owner_uid) references ttrss_users(id) ON DELETE CASCADE) ENGINE=InnoDB DEFAULT CHARSET=UTF8
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/70.sql
alter table ttrss_users add column full_name varchar(250)
;;
alter table ttrss_users change full_name full_name varchar(250) not null
;;
alter table ttrss_users alter column full_name set default ''
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/72.sql
alter table ttrss_user_entries add column tag_cache text
;;
alter table ttrss_user_entries change tag_cache tag_cache text not null
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/74.sql
alter table ttrss_user_entries add column label_cache text
;;
alter table ttrss_user_entries change label_cache label_cache text not null
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/75.sql
alter table ttrss_feeds add column order_id integer
;;
alter table ttrss_feeds change order_id order_id integer not null
;;
alter table ttrss_feeds alter column order_id set default 0
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/76.sql
alter table ttrss_users add column twitter_oauth longtext
;;
alter table ttrss_users alter column twitter_oauth set default null
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/83.sql
alter table ttrss_feeds add column mark_unread_on_update boolean
;;
alter table ttrss_feeds change mark_unread_on_update mark_unread_on_update boolean not null
;;
alter table ttrss_feeds alter column mark_unread_on_update set default false
;;
alter table ttrss_feeds add column strip_images boolean
;;
alter table ttrss_feeds change strip_images strip_images boolean not null
;;
alter table ttrss_feeds alter column strip_images set default false
;;
alter table ttrss_feeds add column update_on_checksum_change boolean
;;
alter table ttrss_feeds change update_on_checksum_change update_on_checksum_change boolean not null
;;
alter table ttrss_feeds alter column update_on_checksum_change set default false
;;
alter table ttrss_feeds add column pubsub_state integer
;;
alter table ttrss_feeds change pubsub_state pubsub_state integer not null
;;
alter table ttrss_feeds alter column pubsub_state set default 0
;;
alter table ttrss_users drop foreign key ttrss_users_ibfk_1
;;
alter table ttrss_users drop column theme_id
;;
drop table ttrss_themes
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/84.sql
create table ttrss_linked_instances (id integer not null primary key auto_increment,
	last_connected timestamp not null,
	last_status_in integer not null,
	last_status_out integer not null,
	access_key varchar(250) not null unique,
	access_url text not null) ENGINE=InnoDB DEFAULT CHARSET=UTF8
;;
create table ttrss_linked_feeds (
	feed_url text not null,
	title text not null,
	created datetime not null,
	updated datetime not null,
	instance_id integer not null,
	subscribers integer not null,
 	foreign key (instance_id) references ttrss_linked_instances(id) ON DELETE CASCADE) ENGINE=InnoDB DEFAULT CHARSET=UTF8
;;
drop table ttrss_scheduled_updates
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/85.sql
alter table ttrss_feedbrowser_cache add column site_url text
;;
alter table ttrss_feedbrowser_cache change site_url site_url text not null
;;
alter table ttrss_linked_feeds add column site_url text
;;
alter table ttrss_linked_feeds change site_url site_url text not null
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/86.sql
alter table ttrss_user_entries add column uuid varchar(200)
;;
alter table ttrss_user_entries change uuid uuid varchar(200) not null
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/87.sql
alter table ttrss_filters add column cat_filter bool
;;
alter table ttrss_filters change cat_filter cat_filter bool not null
;;
alter table ttrss_filters alter column cat_filter set default false
;;
alter table ttrss_filters add column cat_id integer
;;
alter table ttrss_filters add FOREIGN KEY (cat_id) REFERENCES ttrss_feed_categories(id) ON DELETE CASCADE
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/88.sql
alter table ttrss_users add column salt varchar(250)
;;
alter table ttrss_users change salt salt varchar(250) not null
;;
alter table ttrss_users alter column salt set default ''
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/92.sql
alter table ttrss_feeds add column favicon_last_checked datetime
;;
alter table ttrss_feeds alter column favicon_last_checked set default null
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/93.sql
alter table ttrss_feed_categories add column parent_cat integer
;;
alter table ttrss_feed_categories add FOREIGN KEY (parent_cat) REFERENCES ttrss_feed_categories(id) ON DELETE SET NULL
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/95.sql
alter table ttrss_prefs_sections add column order_id integer
;;
alter table ttrss_prefs_sections change order_id order_id int not null
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/96.sql
create table ttrss_filters2(id integer primary key auto_increment,
	owner_uid integer not null,
	match_any_rule boolean not null default false,
	enabled boolean not null default true,
	index(owner_uid),
	foreign key (owner_uid) references ttrss_users(id) ON DELETE CASCADE) ENGINE=InnoDB DEFAULT CHARSET=UTF8
;;
create table ttrss_filters2_rules(id integer primary key auto_increment,
	filter_id integer not null references ttrss_filters2(id) on delete cascade,
	reg_exp varchar(250) not null,
	filter_type integer not null,
	feed_id integer default null,
	cat_id integer default null,
	cat_filter boolean not null default false,
	index (filter_id),
	foreign key (filter_id) references ttrss_filters2(id) on delete cascade,
	index (filter_type),
	foreign key (filter_type) references ttrss_filter_types(id) ON DELETE CASCADE,
	index (feed_id),
	foreign key (feed_id) references ttrss_feeds(id) ON DELETE CASCADE,
	index (cat_id),
	foreign key (cat_id) references ttrss_feed_categories(id) ON DELETE CASCADE) ENGINE=InnoDB DEFAULT CHARSET=UTF8
;;
create table ttrss_filters2_actions(id integer primary key auto_increment,
	filter_id integer not null,
	action_id integer not null default 1 references ttrss_filter_actions(id) on delete cascade,
	action_param varchar(250) not null default '',
	index (filter_id),
	foreign key (filter_id) references ttrss_filters2(id) on delete cascade,
	index (action_id),
	foreign key (action_id) references ttrss_filter_actions(id) ON DELETE CASCADE) ENGINE=InnoDB DEFAULT CHARSET=UTF8
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/97.sql
alter table ttrss_users add column otp_enabled boolean
;;
alter table ttrss_users change otp_enabled otp_enabled boolean not null
;;
alter table ttrss_users alter column otp_enabled set default false
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/99.sql
alter table ttrss_feeds add column cache_content bool
;;
alter table ttrss_feeds change cache_content cache_content bool not null
;;
alter table ttrss_feeds alter column cache_content set default false
;;
alter table ttrss_entries add column cached_content longtext
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/101.sql
create table ttrss_plugin_storage (
	id integer not null auto_increment primary key,
	name varchar(100) not null,
	owner_uid integer not null,
	content longtext not null,
  	foreign key (owner_uid) references ttrss_users(id) ON DELETE CASCADE) ENGINE=InnoDB DEFAULT CHARSET=UTF8
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/103.sql
alter table ttrss_entries add column plugin_data longtext
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/105.sql
alter table ttrss_user_entries add column last_marked datetime
;;
alter table ttrss_user_entries add column last_published datetime
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/106.sql
alter table ttrss_feeds add column hide_images bool
;;
alter table ttrss_feeds change hide_images hide_images bool not null
;;
alter table ttrss_feeds alter column hide_images set default false
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/107.sql
alter table ttrss_filters2 add column inverse bool
;;
alter table ttrss_filters2 change inverse inverse bool not null
;;
alter table ttrss_filters2 alter column inverse set default false
;;
alter table ttrss_filters2_rules add column inverse bool
;;
alter table ttrss_filters2_rules change inverse inverse bool not null
;;
alter table ttrss_filters2_rules alter column inverse set default false
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/112.sql
alter table ttrss_filters2 add column order_id integer
;;
alter table ttrss_filters2 change order_id order_id integer not null
;;
alter table ttrss_filters2 alter column order_id set default 0
;;
alter table ttrss_filters2 add column title varchar(250)
;;
alter table ttrss_filters2 change title title varchar(250) not null
;;
alter table ttrss_filters2 alter column title set default ''
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/114.sql
alter table ttrss_feeds add column view_settings varchar(250)
;;
alter table ttrss_feeds change view_settings view_settings varchar(250) not null
;;
alter table ttrss_feeds alter column view_settings set default ''
;;
alter table ttrss_feed_categories add column view_settings varchar(250)
;;
alter table ttrss_feed_categories change view_settings view_settings varchar(250) not null
;;
alter table ttrss_feed_categories alter column view_settings set default ''
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/115.sql
alter table ttrss_prefs_sections drop column section_name
;;
alter table ttrss_prefs drop column short_desc
;;
alter table ttrss_prefs drop column help_text
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/117.sql
ALTER TABLE ttrss_feeds ADD COLUMN favicon_avg_color VARCHAR(11)
;;
alter table ttrss_feeds alter column favicon_avg_color set default null
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/118.sql
create table ttrss_error_log(
	id integer not null auto_increment primary key,
	owner_uid integer,
	errno integer not null,
	errstr text not null,
	filename text not null,
	lineno integer not null,	
	context text not null,
	created_at datetime not null,
	foreign key (owner_uid) references ttrss_users(id) ON DELETE SET NULL) ENGINE=InnoDB DEFAULT CHARSET=UTF8
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/122.sql
alter table ttrss_entries add column lang varchar(2)
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/123.sql
ALTER TABLE ttrss_counters_cache ENGINE=InnoDB DEFAULT CHARSET=UTF8
;;
ALTER TABLE ttrss_cat_counters_cache ENGINE=InnoDB DEFAULT CHARSET=UTF8
;;
ALTER TABLE ttrss_feedbrowser_cache ENGINE=InnoDB DEFAULT CHARSET=UTF8
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/124.sql
alter table ttrss_users add column resetpass_token varchar(250)
;;
alter table ttrss_users alter column resetpass_token set default null
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/125.sql
alter table ttrss_users drop column resetpass_token
;;
alter table ttrss_users add column resetpass_token varchar(250)
;;
alter table ttrss_users alter column resetpass_token set default null
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/126.sql
alter table ttrss_enclosures add column width integer not null default 0
;;
alter table ttrss_enclosures add column height integer not null default 0
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/128.sql
alter table ttrss_feeds modify column last_updated datetime DEFAULT NULL
;;
alter table ttrss_feeds add column feed_language varchar(100)
;;
alter table ttrss_feeds change feed_language feed_language varchar(100) not null
;;
alter table ttrss_feeds alter column feed_language set default ''
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/130.sql
alter table ttrss_feeds alter column last_updated set default null
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/131.sql
ALTER TABLE ttrss_filters2_rules ADD COLUMN match_on TEXT
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/132.sql
alter table ttrss_feeds add column last_modified varchar(250)
;;
alter table ttrss_feeds change last_modified last_modified varchar(250) not null
;;
alter table ttrss_feeds alter column last_modified set default ''
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/133.sql
alter table ttrss_feeds add column last_unconditional datetime null
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/134.sql
ALTER TABLE ttrss_filters2_rules MODIFY reg_exp text not null
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/135.sql
alter table ttrss_filters2 add column last_triggered datetime
;;
alter table ttrss_filters2 alter column last_triggered set default null
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/136.sql
alter table ttrss_archived_feeds add column created datetime
;;
alter table ttrss_archived_feeds change created created datetime not null
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/137.sql
alter table ttrss_feeds add constraint ttrss_feeds_feed_url_owner_uid_key unique (feed_url(255), owner_uid)
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/139.sql
create table ttrss_app_passwords (id integer not null primary key auto_increment,
    title varchar(250) not null,
    pwd_hash text not null,
    service varchar(100) not null,
    created datetime not null,
    last_used datetime default null,
    owner_uid integer not null references ttrss_users(id) on delete cascade) ENGINE=InnoDB DEFAULT CHARSET=UTF8
;;
-- file: tt-rss/usr/share/tt-rss/schema/versions/mysql/140.sql
alter table ttrss_feeds add column last_successful_update datetime
;;
alter table ttrss_feeds alter column last_successful_update set default null
;;
