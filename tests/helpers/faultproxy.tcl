# faultproxy.tcl -- a TCP proxy that injects faults on a replication link.
#
# Run as its own process (so its event loop keeps forwarding while a test
# blocks on a server reply):
#     tclsh faultproxy.tcl TARGET_HOST TARGET_PORT
# It listens on 127.0.0.1 at a free port and prints "port N". Every
# connection accepted there is paired with a new one to the target, and
# bytes are copied both ways. Commands arrive one per line on stdin; each
# is answered with one line on stdout starting with "ok":
#     delay MS        hold every chunk MS ms before forwarding it (0: off)
#     stall / resume  stop reading either side (the kernel buffers fill,
#                     the peers see a silent link) / start again
#     cut             close every open pair now
#     cut_after N     close every open pair once N more bytes went from
#                     the target to the client (a cut mid-payload)
#     corrupt DIR N   flip the bits of one byte, N bytes from now, going
#                     down (target to client) or up (client to target): junk
#                     in the middle of an otherwise good stream (TLS records
#                     then fail their integrity check)
#     stats           "ok down BYTES conns ACCEPTED open OPEN"
#     quit
# Data enters on the accepted sockets and the target sockets and leaves on
# the other side of each pair; nothing is kept once forwarded.
# The tests drive it through faultproxy_* in tests/helpers/repl.tcl.

set target_host [lindex $argv 0]
set target_port [lindex $argv 1]
set delay_ms 0
set stalled 0
set cut_at -1 ;# total downstream byte count at which to cut, -1: never
set down 0
set up 0
set corrupt_at {down -1 up -1} ;# per direction: byte count to flip at, -1: none
set conns 0
set pairs {} ;# list of {client target}

proc pair_close {cs ts} {
    global pairs
    catch {close $cs}
    catch {close $ts}
    set i [lsearch -exact $pairs [list $cs $ts]]
    if {$i >= 0} { set pairs [lreplace $pairs $i $i] }
}

proc cut_all {} {
    global pairs
    foreach p $pairs { pair_close {*}$p }
}

proc arm {from to cs ts} {
    global stalled
    if {$stalled} {
        catch {fileevent $from readable {}}
    } else {
        catch {fileevent $from readable [list pump $from $to $cs $ts]}
    }
}

# Flip the byte of data that is the corrupt_at point of direction dir, if
# it falls in this chunk (which starts at byte count `start`).
proc corrupt_chunk {dir start data} {
    global corrupt_at
    set at [dict get $corrupt_at $dir]
    if {$at < 0 || $at >= $start + [string length $data]} { return $data }
    set i [expr {$at - $start}]
    binary scan [string index $data $i] cu b
    dict set corrupt_at $dir -1
    return [string replace $data $i $i [binary format c [expr {$b ^ 0xff}]]]
}

proc pump {from to cs ts} {
    global delay_ms down up cut_at
    if {[catch {read $from 65536} data] || ([eof $from] && $data eq "")} {
        pair_close $cs $ts
        return
    }
    if {$data eq ""} return
    if {$from eq $ts && $cut_at >= 0 && $down + [string length $data] >= $cut_at} {
        # forward exactly up to the cut point, then drop the link
        set keep [expr {$cut_at - $down}]
        catch {puts -nonewline $to [string range $data 0 [expr {$keep - 1}]]; flush $to}
        incr down $keep
        set cut_at -1
        cut_all
        return
    }
    if {$from eq $ts} {
        set data [corrupt_chunk down $down $data]
        incr down [string length $data]
    } else {
        set data [corrupt_chunk up $up $data]
        incr up [string length $data]
    }
    if {$delay_ms > 0} {
        fileevent $from readable {}
        after $delay_ms [list deliver $from $to $cs $ts $data]
        return
    }
    deliver $from $to $cs $ts $data
}

proc deliver {from to cs ts data} {
    global pairs
    if {[lsearch -exact $pairs [list $cs $ts]] < 0} return
    if {[catch {puts -nonewline $to $data; flush $to}]} {
        pair_close $cs $ts
        return
    }
    arm $from $to $cs $ts
}

proc accept {cs addr port} {
    global target_host target_port pairs conns
    incr conns
    if {[catch {socket $target_host $target_port} ts]} {
        close $cs
        return
    }
    foreach s [list $cs $ts] {
        fconfigure $s -translation binary -blocking 0 -buffering none
    }
    lappend pairs [list $cs $ts]
    arm $cs $ts $cs $ts
    arm $ts $cs $cs $ts
}

proc rearm_all {} {
    global pairs
    foreach p $pairs {
        lassign $p cs ts
        arm $cs $ts $cs $ts
        arm $ts $cs $cs $ts
    }
}

proc control {} {
    global delay_ms stalled cut_at down up conns pairs corrupt_at
    if {[gets stdin line] < 0} {
        if {[eof stdin]} { exit 0 }
        return
    }
    set args [split [string trim $line]]
    switch -- [lindex $args 0] {
        delay { set delay_ms [lindex $args 1] }
        stall { set stalled 1; rearm_all }
        resume { set stalled 0; rearm_all }
        cut { cut_all }
        cut_after { set cut_at [expr {$down + [lindex $args 1]}] }
        corrupt {
            set dir [lindex $args 1]
            if {$dir ni {up down}} { puts "err corrupt up|down N"; flush stdout; return }
            dict set corrupt_at $dir [expr {[set $dir] + [lindex $args 2]}]
        }
        stats {
            puts "ok down $down conns $conns open [llength $pairs]"
            flush stdout
            return
        }
        quit { cut_all; puts ok; flush stdout; exit 0 }
        default { puts "err unknown command"; flush stdout; return }
    }
    puts ok
    flush stdout
}

set listener [socket -server accept -myaddr 127.0.0.1 0]
puts "port [lindex [fconfigure $listener -sockname] 2]"
flush stdout
fconfigure stdin -blocking 0 -buffering line
fileevent stdin readable control
vwait forever
