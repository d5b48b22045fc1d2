# rdb_loading.tcl -- the server while it loads its snapshot at start-up:
# clients connect and get -LOADING for commands without the loading flag
# (GET, PING, SET, DBSIZE, inside MULTI too) while INFO, CONFIG, ECHO ...
# answer; INFO persistence shows loading:1 and the loading_* fields with a
# growing loading_loaded_perc; the data is there once loading:0; the log
# reports progress; SIGTERM and SHUTDOWN during the load exit without
# overwriting the file. key-load-delay slows the load down and
# loading-process-events-interval-bytes (both Redis 7.0 directives) makes
# the reference serve clients as often as cairn does.
source [file join [file dirname [info script]] .. helpers harness.tcl]

set is_cairn [string match *cairn* [file tail $::cairn(server)]]
set nkeys 20000

set srv [start_server]
set c [client $srv]
r $c DEBUG POPULATE $nkeys key 10
r $c SET marker here
set digest [r $c DEBUG DIGEST]
assert_equal OK [r $c SAVE]
close_client $c
stop_server $srv
set dump [file join [dict get $srv dir] dump.rdb]
set dump_size [file size $dump]

# Starts srv's server on its dump without waiting for the load to end, and
# returns a client connected while it loads.
proc spawn_loading {srvvar delay} {
    upvar 1 $srvvar srv
    for {set i 0} {$i < 100} {incr i} {
        if {[::cairn_h::port_free [dict get $srv port]]} break
        after 50
    }
    dict set srv config [list key-load-delay $delay loading-process-events-interval-bytes 1024]
    set srv [::cairn_h::spawn $srv]
    set deadline [expr {[clock milliseconds] + 10000}]
    while {[catch {client $srv} cl]} {
        if {[clock milliseconds] > $deadline} { error "cannot connect while loading: $cl" }
        after 10
    }
    return $cl
}

proc loading_info {c} {
    set d [dict create]
    foreach line [split [r $c INFO persistence] "\r\n"] {
        if {[regexp {^([a-z_]+):(.*)$} $line -> k v]} { dict set d $k $v }
    }
    return $d
}

test "A client connecting during the load gets -LOADING, INFO and CONFIG answer" {
    set c [spawn_loading srv 150]
    set err "LOADING Redis is loading the dataset in memory"
    assert_error $err {r $c GET marker}
    assert_error $err {r $c PING}
    assert_error $err {r $c SET a b}
    assert_error $err {r $c DBSIZE}
    assert_equal x [r $c ECHO x]
    if {$::is_cairn} {
        # Would save the half-loaded dataset over the file being read.
        assert_error $err {r $c DEBUG RELOAD}
    }
    assert_equal [list port [dict get $srv port]] [r $c CONFIG GET port]
    # some directives may change while loading, appendonly (and dir) may not
    assert_equal OK [r $c CONFIG SET loglevel notice]
    assert_error $err {r $c CONFIG SET appendonly yes}
    # A rejected command inside MULTI aborts the transaction.
    assert_equal OK [r $c MULTI]
    assert_error $err {r $c GET marker}
    assert_error "EXECABORT*" {r $c EXEC}
    set i [loading_info $c]
    assert_equal 1 [dict get $i loading]
    foreach f {loading_start_time loading_total_bytes loading_rdb_used_mem loading_loaded_bytes
               loading_loaded_perc loading_eta_seconds} {
        assert [dict exists $i $f] "INFO persistence has $f"
    }
    assert_equal $::dump_size [dict get $i loading_total_bytes]
    assert {[dict get $i loading_rdb_used_mem] > 0}
    assert {abs([dict get $i loading_start_time] - [clock seconds]) <= 5}
    # The loading fields come last, after the AOF ones, as in Redis.
    set keys [dict keys $i]
    assert_equal loading_eta_seconds [lindex $keys end]
    assert {[lsearch $keys aof_enabled] < [lsearch $keys loading_start_time]}
    # The percentage grows while the load goes on.
    set p1 [dict get $i loading_loaded_perc]
    set p2 $p1
    wait_for {[set p2 [dict get [loading_info $c] loading_loaded_perc]] > $p1} 10000
    assert {$p2 > $p1 && $p2 < 100}
    assert {[dict get [loading_info $c] loading_loaded_bytes] > 0}
    # Then the data, and no more loading fields.
    wait_for {[dict get [loading_info $c] loading] == 0} 60000
    set i [loading_info $c]
    assert {![dict exists $i loading_loaded_perc]}
    assert_equal here [r $c GET marker]
    assert_equal PONG [r $c PING]
    assert_equal [expr {$::nkeys + 1}] [r $c DBSIZE]
    assert_equal $::digest [r $c DEBUG DIGEST]
    assert_equal [expr {$::nkeys + 1}] [dict get $i rdb_last_load_keys_loaded]
    assert_match "*errorstat_LOADING:count=*" [r $c INFO errorstats]
    close_client $c
    stop_server $srv
    assert_equal "" [sanitizer_report $srv]
}

test "A slow load reports its progress in the log" {
    if {!$::is_cairn} { skip_test "cairn's own log line" }
    set text [::cairn_h::tail_file [dict get $srv log] 200]
    assert_match "*Loading RDB: * of $::dump_size bytes (*%), * keys so far*" $text
}

test "The server says it is initialized (and writes its pid file) before the load" {
    set pid [dict get $srv pid]
    set mine {}
    foreach line [split [::cairn_h::tail_file [dict get $srv log] 400] \n] {
        if {[string match "$pid:*" $line]} { lappend mine $line }
    }
    set init [lsearch -glob $mine "*Server initialized*"]
    set load [lsearch -glob $mine "*Loading RDB produced*"]
    assert {$init >= 0 && $load > $init} "Server initialized ($init) before the load ($load)"
}

test "SIGTERM during the load exits at once and leaves the file alone" {
    set mtime [file mtime $::dump]
    set c [spawn_loading srv 150]
    assert_error "LOADING*" {r $c GET marker}
    set t0 [clock milliseconds]
    ::cairn_h::signal [dict get $srv pid] TERM
    assert [::cairn_h::wait_exit [dict get $srv pid] 5000] "exited within 5 s"
    ::cairn_h::forget [dict get $srv pid]
    assert {[clock milliseconds] - $t0 < 5000}
    assert_equal $::dump_size [file size $::dump]
    assert_equal $mtime [file mtime $::dump]
    close_client $c
    assert_equal "" [sanitizer_report $srv]
}

test "SHUTDOWN SAVE during the load does not save the partial dataset" {
    set mtime [file mtime $::dump]
    after 1100
    set c [spawn_loading srv 150]
    # With save points configured too: nothing may be written.
    catch {r $c CONFIG SET save "3600 1"}
    catch {r $c SHUTDOWN SAVE}
    assert [::cairn_h::wait_exit [dict get $srv pid] 5000] "exited within 5 s"
    ::cairn_h::forget [dict get $srv pid]
    assert_equal $mtime [file mtime $::dump]
    assert_equal $::dump_size [file size $::dump]
    close_client $c
    # The file still loads whole.
    dict set srv config {}
    set srv [restart_server $srv]
    set c [client $srv]
    assert_equal $::digest [r $c DEBUG DIGEST]
    close_client $c
    stop_server $srv
    assert_equal "" [sanitizer_report $srv]
}

finish
