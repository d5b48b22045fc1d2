# aof_crash.tcl -- crash durability under appendfsync always: several
# clients pipeline INCRs and SETs while the server is killed with SIGKILL
# at a random moment; after each restart every acknowledged write must be
# there. Tagged slow (about 20 s); the counts are printed as "# ..." lines
# (run the file directly to see them:
#   CAIRN_SERVER=$PWD/src/cairn-server tclsh tests/integration/aof_crash.tcl).
source [file join [file dirname [info script]] .. helpers harness.tcl]

set rounds 6
set nclients 4
set depth 8 ;# commands in flight per client

proc mget_check {c keys expect} {
    # expect: dict key -> value
    for {set i 0} {$i < [llength $keys]} {incr i 500} {
        set batch [lrange $keys $i [expr {$i + 499}]]
        set got [r $c MGET {*}$batch]
        foreach k $batch v $got {
            if {$v ne [dict get $expect $k]} {
                error "acknowledged SET $k = [dict get $expect $k] lost (found '$v')"
            }
        }
    }
}

test "appendfsync always: every acknowledged write survives SIGKILL ($rounds rounds)" -tags {slow} {
    set srv [start_server -config {appendonly yes appendfsync always}]
    set total_incr 0
    set total_set 0
    # acked(i): highest INCR reply client i got; sets: key -> value acknowledged
    for {set i 0} {$i < $nclients} {incr i} { set acked($i) 0 }
    set sets [dict create]
    for {set round 1} {$round <= $rounds} {incr round} {
        set cs {}
        for {set i 0} {$i < $nclients} {incr i} { lappend cs [client $srv -timeout 3000] }
        set pid [dict get $srv pid]
        set delay [expr {0.3 + rand() * 1.2}]
        exec sh -c "sleep $delay; kill -9 $pid" &
        set round_incr 0
        set round_set 0
        set n 0
        set alive 1
        while {$alive} {
            # Every client gets `depth` commands in flight before any reply
            # is read, so fsync groups hold several clients' writes.
            set sent {}
            foreach c $cs i [lsort -integer [array names acked]] {
                set mine {}
                for {set d 0} {$d < $depth} {incr d} {
                    incr n
                    if {$d % 2} {
                        set key "s:$round:$i:$n"
                        if {[catch {send_cmd $c SET $key v$n}]} { set alive 0; break }
                        lappend mine [list set $key v$n]
                    } else {
                        if {[catch {send_cmd $c INCR ctr:$i}]} { set alive 0; break }
                        lappend mine [list incr $i]
                    }
                }
                lappend sent $c $mine
            }
            foreach {c mine} $sent {
                foreach op $mine {
                    if {[catch {read_reply $c} reply]} { set alive 0; break }
                    if {[lindex $op 0] eq "set"} {
                        assert_equal OK $reply
                        dict set sets [lindex $op 1] [lindex $op 2]
                        incr round_set
                    } else {
                        set i [lindex $op 1]
                        assert {$reply > $acked($i)}
                        set acked($i) $reply
                        incr round_incr
                    }
                }
            }
        }
        foreach c $cs { catch {close_client $c} }
        wait_for {![server_alive $srv]} 5000
        set srv [restart_server $srv]
        set c [client $srv]
        for {set i 0} {$i < $nclients} {incr i} {
            set v [r $c GET ctr:$i]
            if {$v eq "" || $v < $acked($i)} {
                error "client $i had INCR acknowledged up to $acked($i), found '$v' after the crash"
            }
            # An unacknowledged INCR may have reached the disk: continue from there.
            set acked($i) $v
        }
        mget_check $c [dict keys $sets] $sets
        close_client $c
        incr total_incr $round_incr
        incr total_set $round_set
        puts "# round $round: killed after [format %.2f $delay] s; $round_incr INCRs and $round_set SETs acknowledged, all present after restart"
        flush stdout
    }
    puts "# total: $total_incr acknowledged INCRs and $total_set acknowledged SETs, none lost in $rounds SIGKILLs"
    assert {$total_incr > 0 && $total_set > 0}
    stop_server $srv
}

finish
