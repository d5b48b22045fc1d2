# rdb_crash.tcl -- crash safety of snapshots: while clients write, SIGKILL
# the server during a BGSAVE (with its child, as a machine crash would),
# during a SAVE, or SIGKILL only the BGSAVE child, at random moments. After
# each kill dump.rdb must load, and hold either the previous good snapshot
# or the new one: DEBUG DIGEST is taken right before each save (no write is
# in flight then) and compared with the digest of what loads. A killed
# child's temp-<pid>.rdb must be gone once the server has reaped it.
# A quick run does 2 kills of each kind; the slow one (tag `slow`) 20 of
# each. The counts are printed as "# ..." lines (run the file directly:
#   CAIRN_SERVER=$PWD/src/cairn-server tclsh tests/integration/rdb_crash.tcl).
source [file join [file dirname [info script]] .. helpers harness.tcl]

expr {srand(20261201)}
set nkeys 2000
set save_delay 250 ;# microseconds per key: a save takes ~0.5-1 s

proc pinfo {c field} { return [info_field $c $field persistence] }

proc child_of {pid} {
    if {[catch {exec pgrep -P $pid} out]} { return "" }
    return [lindex $out 0]
}

# One pipelined batch of n random writes on every client; replies are read
# unless the server went away (returns 0 then).
proc write_batch {cs n} {
    set ok 1
    foreach c $cs {
        for {set i 0} {$i < $n} {incr i} {
            set k [expr {int(rand() * 200)}]
            set x [expr {int(rand() * 100000)}]
            switch [expr {int(rand() * 7)}] {
                0 { set cmd [list SET key:[expr {int(rand() * $::nkeys)}] v$x] }
                1 { set cmd [list INCR ctr:$k] }
                2 { set cmd [list HSET h:$k f[expr {$x % 50}] $x] }
                3 { set cmd [list SADD s:$k [expr {$x % 300}]] }
                4 { set cmd [list ZADD z:$k $x m[expr {$x % 80}]] }
                5 { set cmd [list RPUSH l:$k $x] }
                6 { set cmd [list LTRIM l:$k -20 -1] }
            }
            if {[catch {send_cmd $c {*}$cmd}]} { return 0 }
        }
    }
    foreach c $cs {
        for {set i 0} {$i < $n} {incr i} {
            if {[catch {read_reply $c} err]} {
                if {[string match "*closed*" $err] || [string match "*timeout*" $err] ||
                    [string match "*eof*" $err] || [string match "*connection*" $err]} {
                    return 0
                }
            }
        }
    }
    return $ok
}

proc connect_all {srv} {
    set cs {}
    for {set i 0} {$i < 2} {incr i} { lappend cs [client $srv -timeout 5000] }
    return $cs
}
proc close_all {cs} { foreach c $cs { catch {close_client $c} } }

proc temp_files {srv} {
    return [glob -nocomplain -directory [dict get $srv dir] temp-*.rdb]
}

# Runs `rounds` kills of `kind` (server-bgsave, server-save, child) on a
# fresh server; returns a dict of counts.
proc crash_rounds {kind rounds} {
    set srv [start_server -config [list rdb-key-save-delay $::save_delay]]
    set c [client $srv]
    r $c DEBUG POPULATE $::nkeys key 20
    set cs [connect_all $srv]
    write_batch $cs 200
    r $c CONFIG SET rdb-key-save-delay 0
    assert_equal OK [r $c SAVE]
    r $c CONFIG SET rdb-key-save-delay $::save_delay
    set good [r $c DEBUG DIGEST]
    set counts [dict create old 0 new 0 kills 0]
    for {set round 1} {$round <= $rounds} {incr round} {
        write_batch $cs 100
        # Nothing is in flight now: the digest is what the save will see.
        set new [r $c DEBUG DIGEST]
        set pid [dict get $srv pid]
        set child ""
        set delay [expr {int(rand() * 1500)}]
        if {$kind eq "server-save"} {
            send_cmd $c SAVE
            after $delay
            exec kill -9 $pid
        } else {
            assert_equal {Background saving started} [r $c BGSAVE]
            set child [child_of $pid]
            set until [expr {[clock milliseconds] + $delay}]
            while {[clock milliseconds] < $until} {
                if {![write_batch $cs 20]} break
            }
            if {$kind eq "server-bgsave"} {
                exec kill -9 $pid
                if {$child ne ""} { catch {exec kill -9 $child} }
            } elseif {$child ne ""} {
                catch {exec kill -9 $child}
            }
        }
        dict incr counts kills
        if {$kind ne "child"} {
            ::cairn_h::wait_exit $pid 5000
            if {$child ne ""} {
                for {set i 0} {$i < 100 && [file exists /proc/$child]} {incr i} { after 20 }
            }
            close_all $cs
            catch {close_client $c}
            # The harness' restart fails (with the log) if the file does not load.
            set srv [restart_server $srv]
            set c [client $srv]
            set cs [connect_all $srv]
        } else {
            wait_for {[pinfo $c rdb_bgsave_in_progress] == 0} 10000
            # Load what is on disk, in a second look at the same file.
            if {![info exists ::verifier]} {
                set ::verifier [start_server]
                set ::vc [client $::verifier]
            }
            file copy -force [file join [dict get $srv dir] dump.rdb] \
                [file join [dict get $::verifier dir] dump.rdb]
            assert_equal OK [r $::vc DEBUG RELOAD NOSAVE]
            if {$child ne ""} {
                assert {![file exists [file join [dict get $srv dir] temp-$child.rdb]]} \
                    "temp-$child.rdb removed"
            }
        }
        set loaded [r [expr {$kind eq "child" ? $::vc : $c}] DEBUG DIGEST]
        if {$loaded eq $good} {
            dict incr counts old
        } elseif {$loaded eq $new} {
            dict incr counts new
        } else {
            error "$kind round $round: the loaded snapshot ($loaded) is neither the previous one ($good) nor the new one ($new)"
        }
        set good $loaded
        if {$kind ne "child" && [r $c DEBUG DIGEST] ne $good} {
            error "restarted server differs from its file"
        }
    }
    # A save that completes leaves no temp file of its own.
    r $c CONFIG SET rdb-key-save-delay 0
    set before [temp_files $srv]
    assert_equal {Background saving started} [r $c BGSAVE]
    wait_for {[pinfo $c rdb_bgsave_in_progress] == 0} 10000
    assert_equal ok [pinfo $c rdb_last_bgsave_status]
    assert_equal [lsort $before] [lsort [temp_files $srv]]
    close_all $cs
    close_client $c
    stop_server $srv
    assert_equal "" [sanitizer_report $srv]
    puts "# $kind: [dict get $counts kills] kills, loaded the old snapshot [dict get $counts old] times, the new one [dict get $counts new] times"
    return $counts
}

foreach {name rounds tags} {quick 2 {} slow 20 {slow}} {
    foreach kind {server-bgsave server-save child} {
        test "SIGKILL of the $kind at random moments ($rounds times, $name): the dump always loads, old or new" \
            -tags $tags [list crash_rounds $kind $rounds]
    }
}

if {[info exists ::verifier]} {
    close_client $::vc
    stop_server $::verifier
    test "No sanitizer report in the verifying server" {
        assert_equal "" [sanitizer_report $::verifier]
    }
}

finish
