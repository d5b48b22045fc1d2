# rdb_child.tcl -- the BGSAVE child as the parent sees it: progress (keys
# processed, current_fork_perc) and copy-on-write sizes reported through
# the child-info pipe into INFO persistence, the final rdb_last_cow_size,
# disable-thp applied at start-up, and the backoff of a save point after
# a failed BGSAVE (CONFIG_BGSAVE_RETRY_DELAY: 5 s after the last attempt).
source [file join [file dirname [info script]] .. helpers harness.tcl]

proc pinfo {c} {
    set d [dict create]
    foreach line [split [r $c INFO persistence] "\r\n"] {
        if {[regexp {^([a-z_]+):(.*)$} $line -> k v]} { dict set d $k $v }
    }
    return $d
}

# The BGSAVE child of a server: its only child process.
proc child_pid {srv} {
    set pid [dict get $srv pid]
    if {[catch {exec pgrep -P $pid} out]} { return "" }
    return [lindex $out 0]
}

proc thp_enabled {pid} {
    set f [open /proc/$pid/status]
    set text [read $f]
    close $f
    if {[regexp {THP_enabled:\s*(\d)} $text -> v]} { return $v }
    return ""
}

set nkeys 20000
set srv [start_server -config {rdb-key-save-delay 150}]
set c [client $srv]

test "BGSAVE reports keys processed and copy-on-write while it runs" {
    r $c DEBUG POPULATE $::nkeys key 100
    set i [pinfo $c]
    foreach f {current_cow_peak current_cow_size current_cow_size_age current_save_keys_processed
               current_save_keys_total rdb_last_cow_size} {
        assert_equal 0 [dict get $i $f] $f
    }
    assert_equal 0.00 [dict get $i current_fork_perc]
    assert_equal {Background saving started} [r $c BGSAVE]
    assert_equal $::nkeys [dict get [pinfo $c] current_save_keys_total]
    # Writes to existing keys make the parent copy pages the child keeps.
    for {set k 0} {$k < $::nkeys} {incr k 7} { r $c SET key:$k [string repeat y 100] }
    wait_for {[dict get [pinfo $c] current_save_keys_processed] > 0} 10000
    set i [pinfo $c]
    set done1 [dict get $i current_save_keys_processed]
    assert {$done1 < $::nkeys}
    assert {[dict get $i current_fork_perc] > 0 && [dict get $i current_fork_perc] < 100}
    assert_equal [format %.2f [expr {$done1 * 100.0 / $::nkeys}]] [dict get $i current_fork_perc]
    assert {[dict get $i current_cow_size] > 0}
    assert {[dict get $i current_cow_peak] >= [dict get $i current_cow_size]}
    assert {[dict get $i current_cow_size_age] <= 2}
    wait_for {[dict get [pinfo $c] current_save_keys_processed] > $done1} 10000
    wait_for {[dict get [pinfo $c] rdb_bgsave_in_progress] == 0} 60000
    set i [pinfo $c]
    assert_equal ok [dict get $i rdb_last_bgsave_status]
    assert {[dict get $i rdb_last_cow_size] > 0}
    foreach f {current_cow_peak current_cow_size current_save_keys_processed current_save_keys_total} {
        assert_equal 0 [dict get $i $f] "$f after the save"
    }
    assert_equal 0.00 [dict get $i current_fork_perc]
}

# As Redis: only a kernel in "always" mode gives the process huge pages it
# did not ask for, and only then is THP turned off for the process.
proc thp_always {} {
    if {[catch {open /sys/kernel/mm/transparent_hugepage/enabled} f]} { return 0 }
    set mode [read $f]
    close $f
    return [string match {*\[always\]*} $mode]
}

test "disable-thp yes (the default) turns transparent huge pages off in always mode" {
    if {[thp_enabled [dict get $srv pid]] eq ""} { skip_test "no THP_enabled in /proc/PID/status" }
    set mine [thp_enabled [pid]]
    assert_equal [expr {[thp_always] ? 0 : $mine}] [thp_enabled [dict get $srv pid]]
    set other [start_server -config {disable-thp no}]
    assert_equal $mine [thp_enabled [dict get $other pid]]
    stop_server $other
}

test "A save point retries a failed BGSAVE only 5 s after the last attempt" {
    r $c FLUSHALL
    r $c DEBUG POPULATE 2000 key 10
    r $c CONFIG SET rdb-key-save-delay 10000
    after 1100
    r $c CONFIG SET save "1 1"
    r $c SET trigger 1
    wait_for {[dict get [pinfo $c] rdb_bgsave_in_progress] == 1} 5000
    set t0 [clock milliseconds]
    set saves [dict get [pinfo $c] rdb_saves]
    wait_for {[child_pid $srv] ne ""} 5000
    exec kill -9 [child_pid $srv]
    wait_for {[dict get [pinfo $c] rdb_bgsave_in_progress] == 0} 5000
    assert_equal err [dict get [pinfo $c] rdb_last_bgsave_status]
    # The save point still holds (changes, and the last save is old), yet
    # no new attempt comes before the delay.
    wait_for {[dict get [pinfo $c] rdb_bgsave_in_progress] == 1} 15000
    set waited [expr {[clock milliseconds] - $t0}]
    assert {$waited >= 4500 && $waited < 10000} "retried after $waited ms"
    assert_equal [expr {$saves + 1}] [dict get [pinfo $c] rdb_saves]
    r $c CONFIG SET save ""
    catch {exec kill -9 [child_pid $srv]}
    wait_for {[dict get [pinfo $c] rdb_bgsave_in_progress] == 0} 5000
    r $c CONFIG SET rdb-key-save-delay 0
    assert_equal OK [r $c SAVE]
    assert_equal ok [dict get [pinfo $c] rdb_last_bgsave_status]
}

test "No sanitizer report" {
    close_client $c
    stop_server $srv
    assert_equal "" [sanitizer_report $srv]
}

finish
