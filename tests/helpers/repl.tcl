# repl.tcl -- helpers for the replication tests (sourced after harness.tcl).
#
#   repl_attach $rc $msrv        REPLICAOF the server msrv, wait for the link
#   repl_wait_link $rc           wait for master_link_status:up
#   repl_wait_caught_up $mc $rc  wait until the replica's offset is the primary's
#   repl_same_data $mc $rc       assert equal DEBUG DIGEST and key summaries
#   repl_wait_online $mc N       wait until the primary streams to N replicas
#   faultproxy_start $msrv       a faultproxy.tcl process in front of msrv;
#                                returns a handle (its port: faultproxy_port)
#   faultproxy $h CMD ...        send it a command, return its reply line
#   faultproxy_stop $h

proc repl_wait_link {rc {ms 20000}} {
    wait_for {[info_field $rc master_link_status replication] eq "up"} $ms "replica link up"
}

proc repl_attach {rc msrv {ms 20000}} {
    r $rc REPLICAOF [dict get $msrv host] [dict get $msrv port]
    repl_wait_link $rc $ms
}

# The primary's offset moves with its PINGs: compare both in one loop.
proc repl_wait_caught_up {mc rc {ms 20000}} {
    wait_for {[info_field $mc master_repl_offset replication] == [info_field $rc slave_repl_offset replication]} \
        $ms "replica caught up"
}

proc repl_same_data {mc rc {dbs {0 5 15}}} {
    assert_equal [r $mc DEBUG DIGEST] [r $rc DEBUG DIGEST] "DEBUG DIGEST"
    set a [rdbdata_meta $mc $dbs]
    set b [rdbdata_meta $rc $dbs]
    assert_equal [dict size $a] [dict size $b] "key count"
    dict for {k v} $a {
        assert_equal $v [dict get $b $k] "key $k: type encoding pexpiretime digest"
    }
}

# The primary sees n replicas streaming.
proc repl_wait_online {mc n {ms 20000}} {
    wait_for {[regexp -all {state=online} [r $mc INFO replication]] == $n} $ms "$n replicas online"
}

proc repl_stat {c field} { return [info_field $c $field stats] }

proc faultproxy_start {msrv} {
    set script [file join $::cairn_h::root tests helpers faultproxy.tcl]
    set ch [open |[list [info nameofexecutable] $script [dict get $msrv host] [dict get $msrv port]] r+]
    fconfigure $ch -buffering line
    set line [gets $ch]
    if {![regexp {^port (\d+)$} $line -> port]} { error "faultproxy did not start: $line" }
    return [list $ch $port]
}

proc faultproxy_port {h} { return [lindex $h 1] }

proc faultproxy {h args} {
    set ch [lindex $h 0]
    puts $ch [join $args]
    set line [gets $ch]
    if {![string match ok* $line]} { error "faultproxy $args: $line" }
    return $line
}

proc faultproxy_stop {h} {
    catch {faultproxy $h quit}
    catch {close [lindex $h 0]}
}
