# latency.tcl -- the latency monitor (LATENCY LATEST / HISTORY / RESET /
# GRAPH / DOCTOR, latency-monitor-threshold) and the per-command latency
# histograms (LATENCY HISTOGRAM, INFO latencystats,
# latency-tracking-info-percentiles).

source [file join [file dirname [info script]] .. helpers harness.tcl]

set srv [start_server -args {--enable-debug-command yes}]
set c [client $srv]

test "LATENCY HISTOGRAM counts calls per command and subcommand" {
    r $c CONFIG RESETSTAT
    r $c SET a b
    r $c SET c d
    r $c CLIENT ID
    set h [r $c LATENCY HISTOGRAM]
    assert_match {calls 2 histogram_usec *} [dict get $h set]
    assert_match {calls 1 histogram_usec *} [dict get $h config|resetstat]
    assert_match {calls 1 histogram_usec *} [dict get $h client|id]
    # a container names its subcommands; unknown names are skipped
    assert_equal {client|id} [dict keys [r $c LATENCY HISTOGRAM client]]
    assert_equal {set} [dict keys [r $c LATENCY HISTOGRAM nosuch set]]
    assert_equal {} [r $c LATENCY HISTOGRAM nosuch]
    # cumulative counts keyed by bucket bounds in microseconds
    set buckets [dict get [dict get $h set] histogram_usec]
    assert_equal 2 [lindex $buckets end]
    foreach {us n} $buckets { assert {$us in {1 2 4 8 16 32 65 131 262 524 1048 2097 4194 8388}} }
    r $c CONFIG RESETSTAT
    assert_equal {config|resetstat} [dict keys [r $c LATENCY HISTOGRAM]]
}

test "INFO latencystats follows latency-tracking-info-percentiles" {
    r $c CONFIG RESETSTAT
    r $c SET a b
    assert_match "*latency_percentiles_usec_set:p50=*,p99=*,p99.9=*" [r $c INFO latencystats]
    r $c CONFIG SET latency-tracking-info-percentiles "0.5 100"
    assert_equal {latency-tracking-info-percentiles {0.5 100}} [r $c CONFIG GET latency-tracking-info-percentiles]
    assert_match "*latency_percentiles_usec_set:p0.5=*,p100=*\r\n*" [r $c INFO latencystats]
    assert_error "*should sit between*" {r $c CONFIG SET latency-tracking-info-percentiles 101}
    assert_error "*Invalid latency-tracking-info-percentiles parameters*" {r $c CONFIG SET latency-tracking-info-percentiles abc}
    r $c CONFIG SET latency-tracking-info-percentiles "50 99 99.9"
    r $c CONFIG SET latency-tracking no
    r $c CONFIG RESETSTAT
    r $c SET a b
    assert_equal {} [r $c LATENCY HISTOGRAM set]
    r $c CONFIG SET latency-tracking yes
    # the section is in INFO ALL and EVERYTHING, not in the default INFO
    assert_match "*# Latencystats*" [r $c INFO ALL]
    assert {![string match "*# Latencystats*" [r $c INFO]]}
}

test "LATENCY monitor records slow commands above the threshold" {
    r $c LATENCY RESET
    r $c CONFIG SET latency-monitor-threshold 0
    r $c DEBUG SLEEP 0.05
    assert_equal {} [r $c LATENCY LATEST]
    r $c CONFIG SET latency-monitor-threshold 20
    r $c DEBUG SLEEP 0.05
    r $c DEBUG SLEEP 0.03
    set latest [r $c LATENCY LATEST]
    assert_equal 1 [llength $latest]
    lassign [lindex $latest 0] event time latency max
    assert_equal command $event
    assert_range $time [expr {[clock seconds] - 5}] [expr {[clock seconds] + 1}]
    assert {$max >= 50 && $max < 1000}
    # one sample per second: the slower one of this second stays
    set history [r $c LATENCY HISTORY command]
    assert_equal 1 [llength $history]
    assert_equal $max [lindex $history 0 1]
    assert_equal {} [r $c LATENCY HISTORY nosuch]
    assert_match "command - high * ms, low * ms (all time high * ms)*" [r $c LATENCY GRAPH command]
    assert_error "ERR No samples available for event 'nosuch'" {r $c LATENCY GRAPH nosuch}
    assert_match "*command: 1 latency spikes*" [r $c LATENCY DOCTOR]
    assert_equal 0 [r $c LATENCY RESET nosuch]
    assert_equal 1 [r $c LATENCY RESET]
    assert_equal {} [r $c LATENCY LATEST]
    r $c CONFIG SET latency-monitor-threshold 0
    assert_match "*Latency monitoring is disabled*" [r $c LATENCY DOCTOR]
}

test "LATENCY records expire-cycle and fork events; INFO shows the fork" {
    r $c LATENCY RESET
    r $c FLUSHALL
    r $c CONFIG SET latency-monitor-threshold 1
    # one key big enough that its deletion by the active cycle is slow
    for {set i 0} {$i < 20} {incr i} {
        set members {}
        for {set j 0} {$j < 10000} {incr j} { lappend members $i.$j }
        r $c SADD bigset {*}$members
    }
    r $c PEXPIRE bigset 10
    set ok 0
    for {set i 0} {$i < 50} {incr i} {
        # DBSIZE, not EXISTS: a lookup would expire the key itself, and
        # the event would then be recorded as a command, not the cycle
        if {[r $c DBSIZE] == 0} { set ok 1; break }
        after 100
    }
    assert $ok "the active cycle deleted the key"
    assert_match "*expire-cycle*" [r $c LATENCY LATEST]
    set forks [info_field $c total_forks stats]
    r $c BGSAVE
    set done 0
    for {set i 0} {$i < 100} {incr i} {
        if {[info_field $c rdb_bgsave_in_progress persistence] == 0} { set done 1; break }
        after 50
    }
    assert $done "BGSAVE finished"
    assert_equal [expr {$forks + 1}] [info_field $c total_forks stats]
    assert {[info_field $c latest_fork_usec stats] > 0}
    r $c CONFIG SET latency-monitor-threshold 0
    r $c FLUSHALL
}

test "LATENCY errors and help" {
    assert_error "*wrong number of arguments for 'latency|help' command" {r $c LATENCY HELP xxx}
    assert_error "*wrong number of arguments for 'latency|history' command" {r $c LATENCY HISTORY}
    assert_error "ERR unknown subcommand 'foo'. Try LATENCY HELP." {r $c LATENCY foo}
    assert_match "LATENCY <subcommand>*" [lindex [r $c LATENCY HELP] 0]
}

finish
