package scope

import (
	"strings"

	"github.com/txlab/txlab/sqlast"
)

// setMySQL checks MySQL's SET: transaction characteristics, user
// variables and the session variables a case needs; never a global one,
// an account, a role or the connection's character set.
func (c *checker) setMySQL() error {
	next := c.at(1)
	switch {
	case next.is("TRANSACTION"), next.is("SESSION", "LOCAL") && c.at(2).is("TRANSACTION"):
		return nil
	case next.is("GLOBAL", "PERSIST", "PERSIST_ONLY"):
		return refuse("SET %s changes the server for every session, which txlab refuses", next.up)
	case next.is("PASSWORD", "ROLE", "DEFAULT"):
		return refuse("SET %s changes an account, which txlab refuses", next.up)
	case next.is("CONFIG"):
		return refuse("SET CONFIG changes the cluster's configuration, which txlab refuses")
	case next.is("STATEMENT"):
		return refuse("SET STATEMENT … FOR is refused: set the variable and run the statement separately")
	case next.is("NAMES", "CHARSET"), next.is("CHARACTER") && c.at(2).is("SET"):
		return refuseEncoding(next.up)
	}
	// Assignments, comma-separated at the top level.
	depth, start := 0, true
	for i := 1; i < len(c.toks); i++ {
		t := c.toks[i]
		switch {
		case t.punct("("):
			depth++
		case t.punct(")"):
			depth--
		case t.punct(",") && depth == 0:
			start = true
			continue
		}
		if !start {
			continue
		}
		start = false
		if t.is("GLOBAL", "PERSIST", "PERSIST_ONLY") {
			return refuse("SET %s changes the server for every session, which txlab refuses", t.up)
		}
		if t.is("SESSION", "LOCAL") {
			i++
			t = c.at(i)
		}
		var name string
		switch {
		case t.kind == tVar && strings.HasPrefix(t.text, "@@"):
			name = strings.ToLower(t.text[2:])
			for _, g := range []string{"global.", "persist.", "persist_only."} {
				if strings.HasPrefix(name, g) || name+"." == g {
					return refuse("SET @@%s changes the server for every session, which txlab refuses", name)
				}
			}
			name = strings.TrimPrefix(strings.TrimPrefix(name, "session."), "local.")
			if name == "" || strings.HasSuffix(name, ".") {
				return refuse("SET %s: cannot read the variable's name", t.text)
			}
		case t.kind == tVar:
			continue // a user variable
		case t.kind == tWord || t.kind == tQuoted:
			name = strings.ToLower(t.text)
		default:
			return unknown("SET " + t.text)
		}
		// Before the look for '=': SET a = 1, NAMES gbk is MySQL too.
		if encodingVariable(sqlast.MySQL, name) {
			return refuseEncoding(name)
		}
		if !c.at(i+1).punct("=") && !c.at(i+1).punct(":=") {
			return unknown("SET " + name + " " + c.at(i+1).text)
		}
		if err := sessionVariable(name, mysqlSafe, mysqlDenied); err != nil {
			return err
		}
	}
	return nil
}

// setPostgres checks PostgreSQL's SET: transaction characteristics and the
// settings a case needs; never search_path, a role or the session's user.
func (c *checker) setPostgres() error {
	i := 1
	if c.at(i).is("SESSION") && c.at(i+1).is("AUTHORIZATION") {
		return refuse("SET SESSION AUTHORIZATION changes the session's user, which txlab refuses")
	}
	if c.at(i).is("SESSION") && c.at(i+1).is("CHARACTERISTICS") {
		return nil
	}
	if c.at(i).is("SESSION", "LOCAL") {
		i++
	}
	switch t := c.at(i); {
	case t.is("TRANSACTION", "CONSTRAINTS"), t.is("TIME") && c.at(i+1).is("ZONE"):
		return nil
	case t.is("ROLE"):
		return refuse("SET ROLE changes the session's privileges, which txlab refuses")
	case t.is("SCHEMA"):
		// PostgreSQL's spelling of SET search_path: unqualified names
		// would then reach the schema it names.
		return refuse("SET SCHEMA changes the schemas searched for unqualified names (search_path), which txlab refuses")
	case t.is("CLUSTER"):
		return refuse("SET CLUSTER SETTING changes the whole cluster, which txlab refuses")
	case t.is("SESSION"):
		return refuse("SET SESSION %s is refused", c.at(i+1).text)
	}
	var parts []string
	for {
		t := c.at(i)
		if t.kind != tWord && t.kind != tQuoted {
			return unknown("SET " + t.text)
		}
		parts = append(parts, strings.ToLower(t.text))
		i++
		if !c.at(i).punct(".") {
			break
		}
		i++
	}
	name := strings.Join(parts, ".")
	if encodingVariable(sqlast.Postgres, name) {
		return refuseEncoding(name) // SET NAMES 'SJIS' has no '='
	}
	if !c.at(i).punct("=") && !c.at(i).is("TO") {
		return unknown("SET " + name + " " + c.at(i).text)
	}
	return sessionVariable(name, pgSafe, pgDenied2)
}

// encodingVariable says whether the session setting name decides how the
// server reads the bytes of the statements that follow, or how it writes
// results. txlab's connections pin it to UTF-8: in SJIS, BIG5, GBK or
// GB18030 a lead byte followed by 0x5c is one character, so a string the
// check reads as holding an escaped quote ends there for the server, and
// what the check took for the rest of the string runs as SQL. MySQL's
// collation_* settings change the connection's character set too, and so
// are refused with it; RESET is refused anyway (forbiddenFirst).
func encodingVariable(d sqlast.Dialect, name string) bool {
	switch d {
	case sqlast.MySQL:
		return name == "names" || name == "charset" || name == "character" ||
			strings.HasPrefix(name, "character_set_") || strings.HasPrefix(name, "collation_")
	case sqlast.Postgres:
		return name == "client_encoding" || name == "names" || name == "server_encoding"
	}
	return false
}

// refuseEncoding refuses SET name; the statement forms (NAMES, CHARSET,
// CHARACTER SET) are named as written, in upper case.
func refuseEncoding(name string) *Refusal {
	what := "SET " + name
	switch strings.ToUpper(name) {
	case "NAMES", "CHARSET":
		what = "SET " + strings.ToUpper(name)
	case "CHARACTER":
		what = "SET CHARACTER SET"
	}
	return refuse("%s changes the encoding the server reads statements in, which txlab keeps at UTF-8: in another, the server can read other SQL than txlab checked", what)
}

// sessionVariable checks the name of a session variable a case sets.
func sessionVariable(name string, safe map[string]bool, denied []string) error {
	for _, d := range denied {
		if name == d || strings.HasSuffix(d, "*") && strings.HasPrefix(name, strings.TrimSuffix(d, "*")) {
			return refuse("SET %s reaches beyond the case (the schema searched, privileges, logging, replication or the server), which txlab refuses", name)
		}
	}
	if safe[name] || strings.HasPrefix(name, "optimizer_") || strings.HasPrefix(name, "enable_") {
		return nil
	}
	return unknown("SET " + name)
}

var mysqlSafe = set("sql_mode", "autocommit", "unique_checks", "foreign_key_checks", "time_zone",
	"innodb_lock_wait_timeout", "lock_wait_timeout", "transaction_isolation", "tx_isolation",
	"transaction_read_only", "tx_read_only", "innodb_snapshot_isolation", "max_execution_time",
	"max_statement_time", "sql_safe_updates", "sql_select_limit", "group_concat_max_len",
	"div_precision_increment", "cte_max_recursion_depth", "max_recursive_iterations", "big_tables",
	"default_storage_engine", "default_tmp_storage_engine", "join_buffer_size", "sort_buffer_size",
	"tmp_table_size", "max_heap_table_size", "innodb_strict_mode", "check_constraint_checks",
	"sql_auto_is_null", "completion_type", "timestamp", "insert_id", "last_insert_id",
	"auto_increment_increment", "auto_increment_offset", "eq_range_index_dive_limit", "tidb_txn_mode",
	"innodb_table_locks", "low_priority_updates", "sql_big_selects", "max_join_size", "lc_time_names",
	"sql_warnings", "sql_notes", "sql_quote_show_create", "explicit_defaults_for_timestamp",
	"in_predicate_conversion_threshold", "histogram_size", "use_stat_tables", "end_markers_in_json",
	"query_cache_type", "wait_timeout", "net_read_timeout", "net_write_timeout",
	"tidb_pessimistic_txn_fair_locking", "tidb_enable_async_commit", "tidb_enable_1pc")

var mysqlDenied = []string{"sql_log_bin", "sql_log_off", "gtid*", "pseudo_*", "debug*", "skip_replication",
	"server_id", "binlog*", "wsrep*", "sql_slave*", "log_*", "general_log*", "slow_query_log*", "init_*",
	"secure_*", "plugin*", "global", "persist", "persist_only", "read_only", "super_read_only", "offline_mode",
	"rand_seed*", "session_track*", "default_role"}

var pgSafe = set("lock_timeout", "statement_timeout", "idle_in_transaction_session_timeout",
	"idle_session_timeout", "deadlock_timeout", "transaction_isolation", "default_transaction_isolation",
	"transaction_read_only", "default_transaction_read_only", "transaction_deferrable",
	"default_transaction_deferrable", "synchronous_commit", "work_mem", "maintenance_work_mem",
	"client_min_messages", "datestyle", "timezone", "intervalstyle", "extra_float_digits", "jit",
	"random_page_cost", "seq_page_cost", "cpu_tuple_cost", "cpu_index_tuple_cost", "cpu_operator_cost",
	"effective_cache_size", "max_parallel_workers_per_gather", "parallel_setup_cost",
	"parallel_tuple_cost", "plan_cache_mode", "constraint_exclusion", "from_collapse_limit",
	"join_collapse_limit", "geqo", "application_name", "bytea_output", "row_security",
	"temp_buffers", "lc_monetary", "lc_numeric", "lc_time", "xmlbinary", "xmloption", "array_nulls",
	"transform_null_equals", "escape_string_warning", "debug_parallel_query", "force_parallel_mode")

var pgDenied2 = []string{"search_path", "role", "session_authorization", "session_replication_role",
	"*preload_libraries", "local_preload_libraries", "session_preload_libraries", "shared_preload_libraries",
	"dynamic_library_path", "allow_system_table_mods", "zero_damaged_pages", "ignore_system_indexes",
	"ignore_checksum_failure", "standard_conforming_strings", "backslash_quote", "temp_tablespaces",
	"default_tablespace", "log_*", "password_encryption", "lo_compat_privileges", "wal_*", "full_page_writes",
	"fsync", "jit_provider", "event_triggers", "check_function_bodies", "default_table_access_method"}
