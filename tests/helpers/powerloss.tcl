# powerloss.tcl -- the Tcl side of the power-loss model
# (tests/helpers/powerloss.c): start a server under the shim, cut the power
# (freeze and SIGKILL the server and its fork children at a given moment),
# and roll its directory back to what the shim recorded as durable.
#
# Data enters as the shim's state directory (DIR.powerloss, next to the
# server's DIR, outside the watched tree) and leaves as the rolled-back DIR
# plus a dict of what the rollback changed. The files the harness itself
# writes (server.log, stdout, server.conf) are left alone.
#
#   powerloss_shim                   path of the shim, or "" (not built)
#   powerloss_restart $srv           restart $srv under the shim, with a fresh
#                                    baseline (everything now in DIR is durable)
#   powerloss_schedule $srv SECONDS  cut the power that many seconds from now
#   powerloss_wait $srv              wait for the cut; its report (a dict)
#   powerloss_rollback $srv ?TORN?   roll DIR back; TORN keeps a random prefix
#                                    of each file's unsynced appended tail

set ::powerloss_keep {server.log stdout server.conf}

proc powerloss_shim {} {
    set bindir [file dirname $::cairn(server)]
    foreach p [list [file join $bindir powerloss.so] \
                   [file join [file dirname $::cairn_h::powerloss_here] .. .. build normal powerloss.so]] {
        if {[file exists $p]} { return [file normalize $p] }
    }
    return ""
}
namespace eval ::cairn_h { variable powerloss_here [file normalize [info script]] }

proc powerloss_state {srv} { return "[dict get $srv dir].powerloss" }

proc powerloss_restart {srv} {
    set state [powerloss_state $srv]
    file delete -force $state
    file mkdir $state
    set saved [array get ::env ASAN_OPTIONS]
    set ::env(LD_PRELOAD) [powerloss_shim]
    set ::env(CAIRN_POWERLOSS_DIR) [dict get $srv dir]
    set ::env(CAIRN_POWERLOSS_STATE) $state
    # The ASan runtime wants to be first; the shim only wraps libc calls.
    set ::env(ASAN_OPTIONS) [join [concat [lindex $saved 1] verify_asan_link_order=0] :]
    try {
        return [restart_server $srv]
    } finally {
        unset ::env(LD_PRELOAD) ::env(CAIRN_POWERLOSS_DIR) ::env(CAIRN_POWERLOSS_STATE)
        if {[llength $saved]} { set ::env(ASAN_OPTIONS) [lindex $saved 1] } else { unset ::env(ASAN_OPTIONS) }
    }
}

# The cut: SIGSTOP freezes the server (no new fork, no new fsync), then its
# children and the server get SIGKILL. Runs in a background shell so the
# test's clients are mid-request when it happens.
proc powerloss_schedule {srv seconds} {
    set pid [dict get $srv pid]
    set done [file join [powerloss_state $srv] cut]
    file delete $done
    exec sh -c "sleep $seconds; kill -STOP $pid; n=0; for c in \$(pgrep -P $pid); do kill -KILL \$c; n=\$((n+1)); done; kill -KILL $pid; echo \"children \$n\" > $done.tmp; mv $done.tmp $done" &
}

proc powerloss_wait {srv} {
    set done [file join [powerloss_state $srv] cut]
    wait_for {[file exists $done]} 20000 "the power cut did not happen"
    wait_for {![server_alive $srv]} 5000
    set f [open $done]
    set report [string trim [read $f]]
    close $f
    return $report
}

# How many events of a kind (fsync, fdatasync, dirsync, unlink, replace,
# baseline) the shim recorded.
proc powerloss_events {srv kind} {
    set f [open [file join [powerloss_state $srv] log]]
    set n 0
    while {[gets $f line] >= 0} {
        if {[lindex $line 1] eq $kind} { incr n }
    }
    close $f
    return $n
}

proc ::cairn_h::pl_read {path} {
    if {![file exists $path]} { return "" }
    return [read_bytes $path]
}

proc ::cairn_h::pl_entries {state id} {
    set entries [dict create]
    set path [file join $state dir $id]
    if {![file exists $path]} { return $entries }
    foreach line [split [string trimright [read_bytes $path] \n] \n] {
        if {[regexp {^(f|d) (\S+) (.*)$} $line -> type eid name]} {
            dict set entries $name [list $type $eid]
        }
    }
    return $entries
}

proc ::cairn_h::pl_live_id {state path} {
    file lstat $path st
    set gen [string trim [pl_read [file join $state gen $st(ino)]]]
    if {$gen eq ""} { set gen 0 }
    return "$st(ino).$gen"
}

# One directory: what is there now becomes what its durable entries say.
proc ::cairn_h::pl_restore_dir {path id state keep torn rel statsVar} {
    upvar 1 $statsVar stats
    set entries [pl_entries $state $id]
    set now [glob -nocomplain -tails -directory $path * .*]
    foreach name $now {
        if {$name in {. ..} || $name in $keep} continue
        set p [file join $path $name]
        set type [expr {[file isdirectory $p] ? "d" : "f"}]
        if {![dict exists $entries $name] || [lindex [dict get $entries $name] 0] ne $type} {
            file delete -force $p
            dict lappend stats removed $rel$name
            continue
        }
        lassign [dict get $entries $name] type eid
        if {$type eq "d"} {
            pl_restore_dir $p $eid $state {} $torn "$rel$name/" stats
            continue
        }
        set cur [read_bytes $p]
        set new [pl_read [file join $state data $eid]]
        set dl [string length $new]
        if {$torn && [string length $cur] > $dl && [pl_live_id $state $p] eq $eid &&
            [string range $cur 0 [expr {$dl - 1}]] eq $new} {
            # the unsynced appended tail: some prefix of it may have made it
            set keepn [expr {int(rand() * ([string length $cur] - $dl + 1))}]
            if {$keepn} {
                append new [string range $cur $dl [expr {$dl + $keepn - 1}]]
                dict incr stats torn
            }
        } elseif {$torn && $dl > 0 && [string length $cur] >= $dl && [pl_live_id $state $p] eq $eid &&
                  [file exists [file join $state inplace [lindex [split $eid .] 0]]]} {
            # rewritten in place by pwrite (the AOF's pad): each 4 KB block
            # of the durable length that changed since may have been
            # written or not, in any order; the size stays the durable one
            set kept 0
            for {set b 0} {$b < $dl} {incr b 4096} {
                set e [expr {min($b + 4096, $dl) - 1}]
                set nb [string range $cur $b $e]
                if {$nb ne [string range $new $b $e] && rand() < 0.5} {
                    set new [string replace $new $b $e $nb]
                    incr kept
                }
            }
            if {$kept} { dict incr stats torn }
        }
        if {$new ne $cur} {
            dict lappend stats reverted $rel$name
            if {[string length $cur] > [string length $new]} {
                dict incr stats dropped [expr {[string length $cur] - [string length $new]}]
            }
            file delete $p
            write_bytes $p $new
        }
    }
    dict for {name e} $entries {
        if {$name in $keep || $name in $now} continue
        lassign $e type eid
        set p [file join $path $name]
        dict lappend stats revived $rel$name
        if {$type eq "d"} {
            file mkdir $p
            pl_restore_dir $p $eid $state {} $torn "$rel$name/" stats
        } else {
            write_bytes $p [pl_read [file join $state data $eid]]
        }
    }
}

# Rolls the (dead) server's directory back to its durable state. Returns a
# dict: removed / reverted / revived (lists of paths relative to DIR),
# dropped (bytes), torn (files that kept part of an unsynced tail).
proc powerloss_rollback {srv {torn 0}} {
    set state [powerloss_state $srv]
    set stats [dict create removed {} reverted {} revived {} dropped 0 torn 0]
    set root [string trim [::cairn_h::pl_read [file join $state root]]]
    if {$root eq ""} { error "the power-loss shim recorded no baseline in $state" }
    ::cairn_h::pl_restore_dir [dict get $srv dir] $root $state $::powerloss_keep $torn "" stats
    return $stats
}
