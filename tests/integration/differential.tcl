# differential.tcl -- differential test: cairn against a reference redis-server.
#
# For several fixed seeds a random but deterministic command stream (string
# and keyspace commands over a small keyspace, mostly in DBs 0..2) is sent to
# the server under test and to the reference server; the raw RESP replies are
# compared byte for byte. Every 200 commands (and at the end of a seed) the
# whole dataset of DBs 0..15 is compared as well (DBSIZE, sorted KEYS *, and
# TYPE/GET/PTTL/OBJECT ENCODING of every key). Each seed runs on a fresh pair
# of servers. One [ok]/[err] line per seed; a seed stops at its first
# difference.
#
# After the seeds, on one more pair of servers, the introspection replies
# clients read when they connect are compared for every command and
# subcommand in cairn's COMMAND LIST (see "Introspection" below): COMMAND
# INFO, COMMAND DOCS (on the fields cairn returns), a bare COMMAND entry by
# entry, and COMMAND GETKEYS/GETKEYSANDFLAGS on some 2500 command lines,
# in RESP2 and again over HELLO 3 connections (the reader understands RESP3
# for this). The stream itself also draws them (RESP2,
# tests/helpers/diff_introspect.tcl). These are skipped when CAIRN_DIFF_SEED
# replays a single seed.
#
# Self-contained on purpose (does not source the shared harness): it starts
# and stops its own servers and reads RESP from raw sockets.
#
# Environment:
#   CAIRN_SERVER      server under test (absolute path)
#   CAIRN_REFERENCE   reference redis-server; empty -> the test is skipped
#   CAIRN_TMP         temp dir for this file
#   CAIRN_DIFF_SEED   run only this seed (e.g. to replay a failure)
#   CAIRN_DIFF_SEEDS  number of seeds to run (default 8: seeds 1..8)
#   CAIRN_DIFF_COUNT  commands per seed (default 3000)
#   CAIRN_DIFF_VERBOSE=1  print every command with both replies
#
# Replay a failing seed:
#   CAIRN_DIFF_SEED=N CAIRN_DIFF_VERBOSE=1 tclsh tests/integration/differential.tcl
#
# The stream is built with an own PRNG (xorshift32), not Tcl's rand(), so it
# is identical across Tcl versions and platforms.
#
# Things that are deliberately avoided or normalised because they are not
# deterministic between two servers:
#   * KEYS replies are compared after sorting their elements.
#   * Command names never contain NUL bytes (redis itself answers such names
#     differently depending on its random dict hash seed).
#   * TTL/PTTL/EXPIRETIME/PEXPIRETIME: -2 and -1 must match exactly, other
#     values may differ by at most 2 s / 2000 ms (relative expires are set a
#     few microseconds apart on the two servers).
#   * No key ever expires by time during a run: relative expire times are
#     >= 100000 s; absolute ones are either far in the future (year 2100+)
#     or in the past for commands that delete the key immediately
#     (EXPIREAT/PEXPIREAT/GETEX EXAT/PXAT). SET ... EXAT/PXAT only gets
#     future times (a past time would leave a logically expired key that
#     DBSIZE still counts until the active expire cycle runs).
#   * Relative expire values carry an offset that grows with the command
#     index ((base + idx) seconds, or (base + idx) * 1000 + r with r < 1000
#     ms), so two relative expires never compare equal in GT/LT decisions
#     no matter when exactly each server executed them.

package require Tcl 8.6

# ---------------------------------------------------------------------------
# Configuration
# ---------------------------------------------------------------------------

proc envget {name default} {
    if {[info exists ::env($name)] && $::env($name) ne ""} { return $::env($name) }
    return $default
}

set ::test_server [envget CAIRN_SERVER ""]
set ::reference [envget CAIRN_REFERENCE ""]
set ::verbose [expr {[envget CAIRN_DIFF_VERBOSE 0] in {1 yes true}}]
set ::ncommands [envget CAIRN_DIFF_COUNT 3000]
# The full dataset check reads every key of 16 databases with every type's
# dumper: worth doing a few times per seed, not constantly.
set ::check_every [envget CAIRN_DIFF_CHECK_EVERY 750]
set ::reply_timeout 10000

if {$::reference eq ""} {
    puts "\[skip\] differential: no reference server"
    puts "0 passed, 0 failed, 1 skipped"
    exit 0
}

set ::script_root [file normalize [file join [file dirname [file normalize [info script]]] .. ..]]
if {$::test_server eq ""} {
    set ::test_server [file join $::script_root src cairn-server]
}
set ::test_server [file normalize $::test_server]
set ::reference [file normalize $::reference]
set ::tmp [envget CAIRN_TMP [file join $::script_root tests tmp "manual-differential-[pid]"]]
set ::tmp [file normalize $::tmp]
file mkdir $::tmp

if {[info exists ::env(CAIRN_DIFF_SEED)] && $::env(CAIRN_DIFF_SEED) ne ""} {
    set ::seeds [list $::env(CAIRN_DIFF_SEED)]
} else {
    set ::seeds {}
    for {set i 1} {$i <= [envget CAIRN_DIFF_SEEDS 8]} {incr i} { lappend ::seeds $i }
}
foreach s [concat $::seeds [list $::ncommands]] {
    if {![string is integer -strict $s] || $s < 0} {
        puts "\[err\] differential: bad seed/count value '$s'"
        puts "0 passed, 1 failed"
        exit 1
    }
}

set ::passed 0
set ::failed 0

# ---------------------------------------------------------------------------
# Deterministic PRNG (xorshift32)
# ---------------------------------------------------------------------------

proc rng_seed {seed} {
    set x [expr {(($seed + 1) * 2654435761 + 0x6d2b79f5) & 0xffffffff}]
    if {$x == 0} { set x 0x1234567 }
    set ::rng $x
    for {set i 0} {$i < 16} {incr i} { rng_next }
}

proc rng_next {} {
    set x $::rng
    set x [expr {($x ^ ($x << 13)) & 0xffffffff}]
    set x [expr {$x ^ ($x >> 17)}]
    set x [expr {($x ^ ($x << 5)) & 0xffffffff}]
    set ::rng $x
    return $x
}

# 0 .. n-1
proc rnd {n} { expr {[rng_next] % $n} }
# true with probability 1/n
proc one_in {n} { expr {[rng_next] % $n == 0} }
proc pick {list} { lindex $list [rnd [llength $list]] }
proc rshuffle {list} {
    for {set i [expr {[llength $list] - 1}]} {$i > 0} {incr i -1} {
        set j [rnd [expr {$i + 1}]]
        set t [lindex $list $i]
        lset list $i [lindex $list $j]
        lset list $j $t
    }
    return $list
}

# ---------------------------------------------------------------------------
# Printable representation of byte strings
# ---------------------------------------------------------------------------

proc repr {s {max 400}} {
    set trunc 0
    if {[string length $s] > $max} {
        set full [string length $s]
        set s [string range $s 0 [expr {$max - 1}]]
        set trunc 1
    }
    set out "\""
    foreach ch [split $s ""] {
        scan $ch %c c
        if {$c == 92} {
            append out "\\\\"
        } elseif {$c == 34} {
            append out "\\\""
        } elseif {$c == 13} {
            append out "\\r"
        } elseif {$c == 10} {
            append out "\\n"
        } elseif {$c == 9} {
            append out "\\t"
        } elseif {$c >= 32 && $c < 127} {
            append out $ch
        } else {
            append out [format "\\x%02x" [expr {$c & 0xff}]]
        }
    }
    append out "\""
    if {$trunc} { append out "...($full bytes)" }
    return $out
}

proc repr_cmd {argv} {
    set parts {}
    foreach a $argv {
        if {$a ne "" && [regexp {^[A-Za-z0-9_.:*?{}+\-]+$} $a]} {
            lappend parts $a
        } else {
            lappend parts [repr $a 120]
        }
    }
    return [join $parts " "]
}

# ---------------------------------------------------------------------------
# Processes and servers
# ---------------------------------------------------------------------------

set ::servers {}      ;# live server dicts
set ::server_seq 0

proc proc_stat {pid} {
    if {[catch {
        set f [open /proc/$pid/stat r]
        set stat [read $f]
        close $f
    }]} { return "" }
    return [string range $stat [expr {[string last ")" $stat] + 2}] end]
}

proc pid_alive {pid} {
    set rest [proc_stat $pid]
    if {$rest eq ""} { return 0 }
    return [expr {[string index $rest 0] ni {Z X x}}]
}

proc wait_exit {pid ms} {
    set deadline [expr {[clock milliseconds] + $ms}]
    while {[pid_alive $pid]} {
        if {[clock milliseconds] > $deadline} { return 0 }
        after 10
    }
    catch {exec true}   ;# lets Tcl reap detached children
    return 1
}

proc noop {args} {}

proc port_free {port} {
    foreach myaddr {{} 127.0.0.1} {
        if {$myaddr eq ""} {
            set cmd [list socket -server noop $port]
        } else {
            set cmd [list socket -server noop -myaddr $myaddr $port]
        }
        if {[catch $cmd s]} { return 0 }
        close $s
    }
    return 1
}

# A free port, chosen by the kernel (bind to port 0), re-checked on all
# addresses; not one of the ports in `avoid`.
proc find_port {avoid} {
    for {set i 0} {$i < 100} {incr i} {
        if {[catch {socket -server noop -myaddr 127.0.0.1 0} s]} continue
        set port [lindex [fconfigure $s -sockname] 2]
        close $s
        if {$port in $avoid || $port < 1024} continue
        if {[port_free $port]} { return $port }
    }
    error "cannot find a free TCP port"
}

proc tail_file {path n} {
    if {[catch {
        set f [open $path r]
        fconfigure $f -translation binary
        set data [read $f]
        close $f
    }]} { return "" }
    set lines [split [string trimright $data \n] \n]
    return [join [lrange $lines end-[expr {$n - 1}] end] \n]
}

# Sends PING on a fresh connection; returns 1 when the server answers.
proc ping_once {port} {
    if {[catch {socket 127.0.0.1 $port} s]} { return 0 }
    set ok 0
    catch {
        fconfigure $s -translation binary -blocking 1
        puts -nonewline $s "*1\r\n\$4\r\nPING\r\n"
        flush $s
        fconfigure $s -blocking 0
        set line ""
        set until [expr {[clock milliseconds] + 1000}]
        while {[clock milliseconds] < $until} {
            append line [read $s]
            if {[string first \n $line] >= 0 || [eof $s]} break
            after 5
        }
        if {[string index $line 0] in {+ -} && ![string match -LOADING* $line]} { set ok 1 }
    }
    catch {close $s}
    return $ok
}

# Starts BINARY; returns a dict {pid port dir log binary watchdog}.
proc start_server {binary avoid} {
    if {![file executable $binary]} {
        error "server binary $binary does not exist or is not executable"
    }
    set lasterr ""
    for {set attempt 0} {$attempt < 3} {incr attempt} {
        set dir [file join $::tmp "server-[incr ::server_seq]"]
        file delete -force $dir
        file mkdir $dir
        set port [find_port $avoid]
        set log [file join $dir server.log]
        set out [file join $dir stdout]
        set pid [exec $binary --port $port --dir $dir --logfile $log --save "" \
                --appendonly no --enable-debug-command yes >>& $out &]
        # Let the runner kill it should this file die.
        catch {
            set f [open [file join $::tmp servers.pids] a]
            puts $f "$pid [lindex [proc_stat $pid] 19]"
            close $f
        }
        # Watchdog: kills the server if this tclsh disappears (killed by a
        # timeout, ^C) without running its cleanup.
        set me [pid]
        set wd ""
        catch {
            set wd [exec /bin/sh -c "while kill -0 $me 2>/dev/null && kill -0 $pid 2>/dev/null; do sleep 1; done; kill -0 $me 2>/dev/null || kill -9 $pid 2>/dev/null" </dev/null >/dev/null 2>/dev/null &]
        }
        set srv [dict create pid $pid port $port dir $dir log $log binary $binary watchdog $wd]
        lappend ::servers $srv
        set deadline [expr {[clock milliseconds] + 10000}]
        set reason "did not answer PING within 10s"
        while {[clock milliseconds] < $deadline} {
            if {![pid_alive $pid]} { set reason "server process exited"; break }
            if {[ping_once $port]} { return $srv }
            after 20
        }
        set lasterr "cannot start $binary on port $port: $reason"
        set t [tail_file $log 8]
        if {$t eq ""} { set t [tail_file $out 8] }
        foreach l [split $t \n] { append lasterr "\n    | $l" }
        stop_server $srv
        # Retry only when the port got taken in the meantime.
        if {![string match -nocase "*address already in use*" $t]} break
    }
    error $lasterr
}

proc stop_server {srv} {
    set pid [dict get $srv pid]
    if {[pid_alive $pid]} {
        catch {
            set s [socket 127.0.0.1 [dict get $srv port]]
            fconfigure $s -translation binary -blocking 1
            puts -nonewline $s "*2\r\n\$8\r\nSHUTDOWN\r\n\$6\r\nNOSAVE\r\n"
            flush $s
            fconfigure $s -blocking 0
            set until [expr {[clock milliseconds] + 2000}]
            while {[clock milliseconds] < $until} {
                read $s
                if {[eof $s]} break
                after 10
            }
            close $s
        }
        if {![wait_exit $pid 3000]} {
            catch {exec kill -9 $pid 2>/dev/null}
            wait_exit $pid 2000
        }
    }
    set wd [dict get $srv watchdog]
    if {$wd ne "" && [pid_alive $wd]} {
        catch {exec kill -9 $wd 2>/dev/null}
        wait_exit $wd 1000
    }
    set i [lsearch -exact $::servers $srv]
    if {$i >= 0} { set ::servers [lreplace $::servers $i $i] }
}

proc stop_all_servers {} {
    foreach srv $::servers { catch {stop_server $srv} }
    set ::servers {}
}

# ---------------------------------------------------------------------------
# Connections and RESP
# ---------------------------------------------------------------------------

proc connect {port} {
    set s [socket 127.0.0.1 $port]
    fconfigure $s -translation binary -blocking 0 -buffering full
    set ::rbuf($s) ""
    return $s
}

proc disconnect {s} {
    catch {close $s}
    unset -nocomplain ::rbuf($s) ::rwait($s)
}

proc encode {argv} {
    set out "*[llength $argv]\r\n"
    foreach a $argv {
        append out "\$[string length $a]\r\n$a\r\n"
    }
    return $out
}

proc send_raw {s bytes} {
    puts -nonewline $s $bytes
    flush $s
}

# Waits up to ms for data; appends what arrives to the read buffer.
proc fill {s ms} {
    set data [read $s]
    if {$data ne ""} { append ::rbuf($s) $data; return }
    if {[eof $s]} { error "connection closed by the server" }
    set ::rwait($s) ""
    fileevent $s readable [list set ::rwait($s) r]
    set id [after $ms [list set ::rwait($s) t]]
    vwait ::rwait($s)
    after cancel $id
    fileevent $s readable {}
    if {$::rwait($s) eq "t"} { error "no reply within [expr {$ms / 1000}]s" }
    set data [read $s]
    append ::rbuf($s) $data
    if {$data eq "" && [eof $s]} { error "connection closed by the server" }
}

# Parses one RESP2 reply at pos of the string in variable bufvar.
# Returns {parsed endpos}, or "" when more data is needed.
# parsed: {+ text} {- text} {: text} {$ bytes} {nil $-1} {* elems} {nil *-1}
proc parse_at {bufvar pos} {
    upvar 1 $bufvar buf
    set e [string first "\r\n" $buf $pos]
    if {$e < 0} { return "" }
    set type [string index $buf $pos]
    set line [string range $buf [expr {$pos + 1}] [expr {$e - 1}]]
    set pos [expr {$e + 2}]
    if {$type eq "+" || $type eq "-" || $type eq ":"} {
        return [list [list $type $line] $pos]
    } elseif {$type eq "\$"} {
        if {![string is integer -strict $line]} {
            error "protocol error: bad bulk length [repr $line]"
        }
        if {$line < 0} { return [list [list nil "\$$line"] $pos] }
        set end [expr {$pos + $line}]
        if {[string length $buf] < $end + 2} { return "" }
        if {[string range $buf $end [expr {$end + 1}]] ne "\r\n"} {
            error "protocol error: bulk not terminated by CRLF"
        }
        return [list [list \$ [string range $buf $pos [expr {$end - 1}]]] [expr {$end + 2}]]
    } elseif {$type eq "*"} {
        if {![string is integer -strict $line]} {
            error "protocol error: bad multibulk length [repr $line]"
        }
        if {$line < 0} { return [list [list nil "*$line"] $pos] }
        set elems {}
        for {set i 0} {$i < $line} {incr i} {
            set r [parse_at buf $pos]
            if {$r eq ""} { return "" }
            lappend elems [lindex $r 0]
            set pos [lindex $r 1]
        }
        return [list [list * $elems] $pos]
    } elseif {$type in {_ # , (}} {
        # RESP3 (the introspection checks speak it too): null, boolean,
        # double, big number.
        return [list [list $type $line] $pos]
    } elseif {$type eq "=" || $type eq "!"} {
        if {![string is integer -strict $line] || $line < 0} {
            error "protocol error: bad length [repr $line]"
        }
        set end [expr {$pos + $line}]
        if {[string length $buf] < $end + 2} { return "" }
        return [list [list $type [string range $buf $pos [expr {$end - 1}]]] [expr {$end + 2}]]
    } elseif {$type in {% ~ >}} {
        if {![string is integer -strict $line] || $line < 0} {
            error "protocol error: bad aggregate length [repr $line]"
        }
        set n [expr {$type eq "%" ? 2 * $line : $line}]
        set elems {}
        for {set i 0} {$i < $n} {incr i} {
            set r [parse_at buf $pos]
            if {$r eq ""} { return "" }
            lappend elems [lindex $r 0]
            set pos [lindex $r 1]
        }
        return [list [list $type $elems] $pos]
    } else {
        error "protocol error: unexpected reply type byte [repr $type]"
    }
}

# Reads one reply; returns {raw parsed}.
proc read_reply {s} {
    while {1} {
        if {$::rbuf($s) ne ""} {
            set r [parse_at ::rbuf($s) 0]
            if {$r ne ""} {
                lassign $r parsed end
                set raw [string range $::rbuf($s) 0 [expr {$end - 1}]]
                set ::rbuf($s) [string range $::rbuf($s) $end end]
                return [list $raw $parsed]
            }
        }
        fill $s $::reply_timeout
    }
}

proc serialize {p} {
    lassign $p type v
    switch -- $type {
        + - - - : { return "$type$v\r\n" }
        nil { return "$v\r\n" }
        \$ { return "\$[string length $v]\r\n$v\r\n" }
        * - ~ - > - % {
            set n [llength $v]
            if {$type eq "%"} { set n [expr {$n / 2}] }
            set out "$type$n\r\n"
            foreach e $v { append out [serialize $e] }
            return $out
        }
        _ - # - , - ( { return "$type$v\r\n" }
        = - ! { return "$type[string length $v]\r\n$v\r\n" }
    }
    error "cannot serialize $p"
}

# Sends a command and reads its reply; {ok {raw parsed}} or {fail message}.
proc call {s argv} {
    if {[catch {send_raw $s [encode $argv]; read_reply $s} r]} {
        return [list fail $r]
    }
    return [list ok $r]
}

# ---------------------------------------------------------------------------
# Reply comparison
# ---------------------------------------------------------------------------

# How a reply is normalised before comparing: "raw" (byte for byte),
# "sort" (array elements sorted), "sec"/"ms" (TTL-like integer, tolerance).
proc normalize {mode reply} {
    lassign $reply raw parsed
    if {$mode eq "sort" && [lindex $parsed 0] eq "*"} {
        set elems [lsort [lindex $parsed 1]]
        return [serialize [list * $elems]]
    }
    return $raw
}

# a and b are results of call/call_read: {ok {raw parsed}} or {fail msg}.
# Returns "" when the replies are equivalent, else "differs".
proc compare {mode a b} {
    if {[lindex $a 0] ne "ok" || [lindex $b 0] ne "ok"} { return "differs" }
    set a [lindex $a 1]
    set b [lindex $b 1]
    set na [normalize $mode $a]
    set nb [normalize $mode $b]
    if {$na eq $nb} { return "" }
    if {$mode eq "sec" || $mode eq "ms"} {
        lassign [lindex $a 1] ta va
        lassign [lindex $b 1] tb vb
        if {$ta eq ":" && $tb eq ":" && [string is wideinteger -strict $va]
                && [string is wideinteger -strict $vb] && $va >= 0 && $vb >= 0} {
            set tol [expr {$mode eq "sec" ? 2 : 2000}]
            if {abs($va - $vb) <= $tol} { return "" }
        }
    }
    return "differs"
}

proc show_reply {r} {
    lassign $r status v
    if {$status ne "ok"} { return "<$v>" }
    return [repr [lindex $v 0] 300]
}

# ---------------------------------------------------------------------------
# Command generator
# ---------------------------------------------------------------------------

set ::keys [list k0 k1 k2 k3 k4 k5 k6 k7 k8 k9 k10 k11 "" "a b" "bin\x00\r\nkey\xff" \
        "{tag}k1" "key:with:colons" "k*" "K1" [string repeat "longkey-" 8]]
set ::hotkeys [lrange $::keys 0 5]

proc rkey {} {
    if {[rnd 10] < 6} { return [pick $::hotkeys] }
    return [pick $::keys]
}

proc rkeys {min max} {
    set n [expr {$min + [rnd [expr {$max - $min + 1}]]}]
    set out {}
    for {set i 0} {$i < $n} {incr i} { lappend out [rkey] }
    return $out
}

set ::bigints {9223372036854775807 9223372036854775806 -9223372036854775808
    -9223372036854775807 9223372036854775808 -9223372036854775809
    18446744073709551615 99999999999999999999 4611686018427387904
    -4611686018427387904 1152921504606846976}
set ::ints {0 1 -1 2 10 100 9999 10000 10001 -10000 123456789 -123456789
    4294967295 4294967296 2147483647 -2147483648}
set ::floats {1.5 -0.5 3.14159 0.1 -0.1 1e10 1.0e-5 -1e-300 2.5e+3 inf -inf
    +inf nan 1e400 -1e400 .5 5. 1.0 1.50 10.0e3 100000000000000000000
    3.0000000000000001 0.30000000000000004 1e17 -1e17 123.456 1e-10 0x10 1e308
    17.0000000000000000001 -0.0 0.0}
set ::weird {007 -0 +1 " 1" "1 " 0 00 1e3 - 12abc "1\x00" "\t2" -00 0x1A "1,5"
    "18446744073709551616" "1.5.5" "--1" "+" "e" ".e1" "9223372036854775807 "}
set ::words {foo bar hello "hello world" a Hello abc abcdefg xyz ohmytext
    mynewtext "Hello, World!" "foo\nbar" "caf\xc3\xa9"}

proc rbinary {} {
    set n [expr {1 + [rnd 12]}]
    set s ""
    for {set i 0} {$i < $n} {incr i} {
        switch [rnd 6] {
            0 { append s \r }
            1 { append s \n }
            2 { append s \x00 }
            3 { append s [pick {\xff \x80 \x7f \x01 " " \" \\ \t}] }
            default { append s [format %c [rnd 256]] }
        }
    }
    return $s
}

proc rlong {} {
    set n [pick {44 45 46 50 64 100 150}]
    if {[one_in 3]} { set n [expr {45 + [rnd 120]}] }
    set alphabet "abcdefghijklmnopqrstuvwxyz0123456789"
    set s ""
    for {set i 0} {$i < $n} {incr i} {
        append s [string index $alphabet [rnd 6]]
    }
    return $s
}

proc rshort {} {
    set n [expr {1 + [rnd 8]}]
    set s ""
    for {set i 0} {$i < $n} {incr i} { append s [string index "abcd" [rnd 4]] }
    return $s
}

proc rval {} {
    switch [rnd 14] {
        0 - 1 { return [expr {[rnd 200] - 50}] }
        2 { return [pick $::ints] }
        3 { return [pick $::bigints] }
        4 { return [pick $::floats] }
        5 { return "" }
        6 { return [rbinary] }
        7 { return [rlong] }
        8 - 9 { return [pick $::words] }
        10 { return [pick $::weird] }
        default { return [rshort] }
    }
}

# Integer arguments (INCRBY, DECRBY, GETRANGE offsets ...)
proc rint {} {
    switch [rnd 10] {
        0 - 1 - 2 - 3 { return [expr {[rnd 41] - 20}] }
        4 - 5 { return [pick $::ints] }
        6 - 7 { return [pick $::bigints] }
        8 { return [pick $::weird] }
        default { return [pick {1.5 abc "" 1e3 0x10 " 1"}] }
    }
}

proc rfloat {} {
    switch [rnd 6] {
        0 - 1 { return [pick $::floats] }
        2 { return [expr {[rnd 41] - 20}] }
        3 { return [pick $::bigints] }
        4 { return [pick $::weird] }
        default { return "[expr {[rnd 2000] - 1000}].[rnd 1000]" }
    }
}

set ::relbases {100000 200000 5000000 1000000000000000}

# Relative expire in seconds (EX, SETEX, EXPIRE).
proc rel_secs {idx} {
    switch [rnd 16] {
        0 { return 0 }
        1 { return [pick {-1 -100 -9223372036854775808}] }
        2 { return [pick {9223372036854775807 9223372036854776 9223372036854775 92233720368547758070 9223372036854}] }
        3 { return [pick {abc "" 1.5 " 5" 100000x}] }
        default { return [expr {[pick $::relbases] + $idx}] }
    }
}

# Relative expire in milliseconds (PX, PSETEX, PEXPIRE).
proc rel_ms {idx} {
    switch [rnd 16] {
        0 { return 0 }
        1 { return [pick {-1 -100000 -9223372036854775808}] }
        2 { return [pick {9223372036854775807 9223372036854775000 9223362036854775807 92233720368547758070}] }
        3 { return [pick {abc "" 1.5 " 5"}] }
        default { return [expr {([pick $::relbases] + $idx) * 1000 + [rnd 1000]}] }
    }
}

set ::future_secs {4102444800 4102444801 5000000000 10000000000}

# Absolute time in seconds. past=1 allows times in the past (deletes key).
proc abs_secs {past} {
    set r [rnd 14]
    if {$r < 9} { return [pick $::future_secs] }
    if {$r < 11 && $past} { return [pick {1 1000000000 0 -1 -9223372036854775808}] }
    if {$r < 12} { return [pick {9223372036854775807 9223372036854775 92233720368547758070}] }
    if {$r < 13} { return [pick {abc "" 1.5}] }
    return [pick {0 -5}]
}

proc abs_ms {past} {
    set r [rnd 14]
    if {$r < 9} { return [expr {[pick $::future_secs] * 1000 + [rnd 1000]}] }
    if {$r < 11 && $past} { return [pick {1 1000000000000 0 -1 -9223372036854775808}] }
    if {$r < 12} { return [pick {9223372036854775807 9223372036854775000 92233720368547758070}] }
    if {$r < 13} { return [pick {abc "" 1.5}] }
    return [pick {0 -5}]
}

proc rdb {} {
    if {[rnd 12] == 0} { return [pick {15 16 -1 abc "" 1.0 99999999999999999999}] }
    return [rnd 3]
}

# Random letter case for command names (and option names).
proc rcase {name} {
    if {[rnd 8] != 0} { return $name }
    set out ""
    foreach ch [split $name ""] {
        if {[rnd 2]} { append out [string toupper $ch] } else { append out [string tolower $ch] }
    }
    return $out
}

# SET options: a random mix, occasionally invalid.
proc set_options {idx} {
    set opts {}
    set n [pick {0 0 1 1 1 2 2 3}]
    for {set i 0} {$i < $n} {incr i} {
        set o [pick {NX XX GET EX PX EXAT PXAT KEEPTTL EX PX GET}]
        if {[one_in 60]} { set o [pick {FOO NXX EXPIRE ""}] }
        lappend opts [rcase $o]
        if {[one_in 40]} continue   ;# missing value
        switch -- $o {
            EX { lappend opts [rel_secs $idx] }
            PX { lappend opts [rel_ms $idx] }
            EXAT { lappend opts [abs_secs 0] }
            PXAT { lappend opts [abs_ms 0] }
        }
    }
    return $opts
}

proc getex_options {idx} {
    switch [rnd 9] {
        0 - 1 { return {} }
        2 { return [list [rcase EX] [rel_secs $idx]] }
        3 { return [list [rcase PX] [rel_ms $idx]] }
        4 { return [list [rcase EXAT] [abs_secs 1]] }
        5 { return [list [rcase PXAT] [abs_ms 1]] }
        6 { return [list [rcase PERSIST]] }
        7 {
            # invalid combos / missing values
            return [pick [list {EX} {PX} {PERSIST EX 100000} [list EX [rel_secs $idx] PX 100000000] \
                    {PERSIST PERSIST} {FOO} [list EX [rel_secs $idx] PERSIST] {KEEPTTL}]]
        }
        default { return [list [rcase EX] [rel_secs $idx]] }
    }
}

proc expire_flags {} {
    set r [rnd 10]
    if {$r < 4} { return {} }
    if {$r < 8} { return [list [rcase [pick {NX XX GT LT}]]] }
    if {$r < 9} { return [list [pick {NX XX GT LT}] [pick {NX XX GT LT}]] }
    return [list [pick {FOO nx,xx "" GTX}]]
}

proc lcs_options {} {
    set opts {}
    foreach o [rshuffle {LEN IDX MINMATCHLEN WITHMATCHLEN}] {
        if {[rnd 3] != 0} continue
        lappend opts [rcase $o]
        if {$o eq "MINMATCHLEN"} {
            if {[one_in 15]} continue   ;# missing value
            lappend opts [pick {0 1 2 3 4 -1 abc 9223372036854775807}]
        }
    }
    if {[one_in 30]} { lappend opts FOO }
    return $opts
}

set ::patterns [list * k* k? k?? "k1*" *1 {k[0-3]} {k[^0-3]} {k[a-z]*} {*:*} \
        {\{*} {*\**} "" h?llo {[k]*} {k\*} *k* K* {*[} {[} {a\\} "bin*" {\x} \
        {k[1-} {k[9-0]} {[!k]*} {*[\]]*} {****} "a b" {*y*} {k[1]?} {[a-c]*}]

# Redis arities (negative: at least |n|, counting the command name).
array set ::arity {
    get 2 set -3 setnx 3 setex 4 psetex 4 getset 3 getdel 2 getex -2 mget -2
    mset -3 msetnx -3 incr 2 decr 2 incrby 3 decrby 3 incrbyfloat 3 append 3
    setrange 4 getrange 4 substr 4 strlen 2 lcs -3 del -2 unlink -2 exists -2
    type 2 expire -3 pexpire -3 expireat -3 pexpireat -3 persist 2 ttl 2
    pttl 2 expiretime 2 pexpiretime 2 rename 3 renamenx 3 copy -3 move 3
    touch -2 dbsize 1 select 2 swapdb 3 keys 2 echo 2 ping -1 object -2
}

proc wrong_arity {} {
    set name [pick [lsort [array names ::arity]]]
    set a $::arity($name)
    if {$a > 0} {
        set n [expr {$a - 1}]
        set choices {}
        for {set c 0} {$c <= $n + 2} {incr c} { if {$c != $n} { lappend choices $c } }
        set nargs [pick $choices]
    } else {
        set min [expr {-$a - 1}]
        if {$min == 0} {
            # ping: only more than one argument is wrong
            set nargs [expr {2 + [rnd 2]}]
        } else {
            set nargs [rnd $min]
        }
    }
    set argv [list [rcase [string toupper $name]]]
    for {set i 0} {$i < $nargs} {incr i} { lappend argv [rkey] }
    if {$name eq "object" && [rnd 3]} {
        # OBJECT ENCODING (a subcommand) with a wrong number of arguments
        set argv [list [rcase OBJECT] [rcase ENCODING]]
        if {[rnd 2]} { lappend argv [rkey] [rkey] }
    }
    return $argv
}

proc unknown_command {} {
    # No NUL bytes in command names: redis compares names with strcasecmp()
    # but hashes them with their full length, so whether "get\0" finds GET
    # depends on the random hash seed.
    set name [pick [list FOOBAR GETT SETX "" "get\x01" "hello world" LPUSHX2 CAIRN \
            [string repeat x 200] "SET\r\n" "\xffGET"]]
    set argv [list $name]
    set n [rnd 4]
    for {set i 0} {$i < $n} {incr i} { lappend argv [rval] }
    return $argv
}

# Returns {mode argv}. idx is the command index within the seed.
# Plugins: each tests/helpers/diff_*.tcl file (one per data type) registers
#   diff_plugin NAME WEIGHT PROC   PROC idx -> {mode argv}, a random command
#   diff_dump PROC                 PROC key -> list of {mode argv} that read a
#                                  key's whole value for the dataset check
# WEIGHT is out of the 1000 the string and key commands share.
set ::plugins {}
set ::plugin_weight 0
set ::dumpers {}
proc diff_plugin {name weight procname} {
    lappend ::plugins $name $weight $procname
    incr ::plugin_weight $weight
}
proc diff_dump {procname} { lappend ::dumpers $procname }
foreach f [lsort [glob -nocomplain [file join [file dirname [info script]] .. helpers diff_*.tcl]]] {
    source $f
}

proc gen_command {idx} {
    if {$::plugin_weight > 0} {
        set r [rnd [expr {1000 + $::plugin_weight}]]
        if {$r >= 1000} {
            set r [expr {$r - 1000}]
            foreach {name weight procname} $::plugins {
                if {$r < $weight} { return [$procname $idx] }
                set r [expr {$r - $weight}]
            }
        }
    }
    set r [rnd 1000]
    # Weighted choice over command groups (cumulative thresholds).
    foreach {limit cmd} {
        90 set   120 get   135 setnx 150 setex 163 psetex 178 getset 193 getdel
        220 getex 240 mget 260 mset 272 msetnx 302 incr 317 decr 342 incrby
        357 decrby 387 incrbyfloat 417 append 442 setrange 467 getrange
        477 substr 497 strlen 517 lcs 542 del 552 unlink 572 exists 587 type
        617 expire 632 pexpire 652 expireat 667 pexpireat 682 persist 702 ttl
        717 pttl 729 expiretime 741 pexpiretime 759 rename 771 renamenx
        796 copy 811 move 823 touch 835 dbsize 865 select 875 swapdb
        895 object 915 keys 925 echo 935 ping 965 arity 1000 unknown
    } {
        if {$r < $limit} break
    }
    set C [rcase [string toupper $cmd]]
    switch -- $cmd {
        set {
            return [list raw [concat [list $C [rkey] [rval]] [set_options $idx]]]
        }
        get - getdel - strlen - type - persist - incr - decr {
            return [list raw [list $C [rkey]]]
        }
        setnx - getset - append {
            return [list raw [list $C [rkey] [rval]]]
        }
        setex { return [list raw [list $C [rkey] [rel_secs $idx] [rval]]] }
        psetex { return [list raw [list $C [rkey] [rel_ms $idx] [rval]]] }
        getex { return [list raw [concat [list $C [rkey]] [getex_options $idx]]] }
        mget { return [list raw [concat [list $C] [rkeys 1 5]]] }
        mset - msetnx {
            set argv [list $C]
            set n [expr {1 + [rnd 4]}]
            for {set i 0} {$i < $n} {incr i} { lappend argv [rkey] [rval] }
            if {[one_in 15]} { lappend argv [rkey] }   ;# odd count: arity error
            return [list raw $argv]
        }
        incrby - decrby { return [list raw [list $C [rkey] [rint]]] }
        incrbyfloat { return [list raw [list $C [rkey] [rfloat]]] }
        setrange {
            set off [rnd 60]
            if {[one_in 12]} { set off [pick {-1 536870912 9223372036854775807 abc ""}] }
            set v [rval]
            if {$off eq "536870912" && [one_in 2]} { set v "" }
            return [list raw [list $C [rkey] $off $v]]
        }
        getrange - substr {
            return [list raw [list $C [rkey] [rint] [rint]]]
        }
        lcs {
            return [list raw [concat [list $C [rkey] [rkey]] [lcs_options]]]
        }
        del - unlink - exists - touch {
            return [list raw [concat [list $C] [rkeys 1 4]]]
        }
        expire {
            return [list raw [concat [list $C [rkey] [rel_secs $idx]] [expire_flags]]]
        }
        pexpire {
            return [list raw [concat [list $C [rkey] [rel_ms $idx]] [expire_flags]]]
        }
        expireat {
            return [list raw [concat [list $C [rkey] [abs_secs 1]] [expire_flags]]]
        }
        pexpireat {
            return [list raw [concat [list $C [rkey] [abs_ms 1]] [expire_flags]]]
        }
        ttl - expiretime { return [list sec [list $C [rkey]]] }
        pttl - pexpiretime { return [list ms [list $C [rkey]]] }
        rename - renamenx { return [list raw [list $C [rkey] [rkey]]] }
        copy {
            set argv [list $C [rkey] [rkey]]
            foreach o [rshuffle {DB REPLACE}] {
                if {[rnd 2]} continue
                lappend argv [rcase $o]
                if {$o eq "DB"} { lappend argv [rdb] }
            }
            if {[one_in 25]} { lappend argv [pick {FOO DB}] }
            return [list raw $argv]
        }
        move { return [list raw [list $C [rkey] [rdb]]] }
        dbsize { return [list raw [list $C]] }
        select { return [list raw [list $C [rdb]]] }
        swapdb { return [list raw [list $C [rdb] [rdb]]] }
        object {
            if {[one_in 10]} {
                return [list raw [list $C [pick {foo ENCODINGX REFCOUNTX ""}] [rkey]]]
            }
            return [list raw [list $C [rcase ENCODING] [rkey]]]
        }
        keys { return [list sort [list $C [pick $::patterns]]] }
        echo { return [list raw [list $C [rval]]] }
        ping {
            if {[rnd 2]} { return [list raw [list $C]] }
            return [list raw [list $C [rval]]]
        }
        arity { return [list raw [wrong_arity]] }
        unknown { return [list raw [unknown_command]] }
    }
    error "generator: unhandled command $cmd"
}

# ---------------------------------------------------------------------------
# Running one seed
# ---------------------------------------------------------------------------

# Compares the whole dataset of DBs 0..15 (the stream mostly uses 0..2, and
# rarely 15) through the inspector connections. Returns "" or a description
# of the first difference.
proc compare_dataset {ts rs} {
    for {set db 0} {$db < 16} {incr db} {
        set cmds [list [list raw [list SELECT $db]] [list raw {DBSIZE}] [list sort {KEYS *}]]
        set pipe ""
        foreach c $cmds { append pipe [encode [lindex $c 1]] }
        foreach c [list $ts $rs] {
            if {[catch {send_raw $c $pipe} err]} { return "db $db: send failed: $err" }
        }
        foreach c $cmds {
            lassign $c mode argv
            set a [call_read $ts]
            set b [call_read $rs]
            if {[compare $mode $a $b] ne ""} {
                return "db $db [repr_cmd $argv]: cairn [show_reply $a], reference [show_reply $b]"
            }
        }
        # Keys of the reference (equal to the other side's, checked above).
        set keys {}
        if {[lindex $b 1 1 0] eq "*"} {
            foreach e [lindex $b 1 1 1] { lappend keys [lindex $e 1] }
        }
        set cmds {}
        foreach k [lsort $keys] {
            lappend cmds [list raw [list TYPE $k]] [list raw [list GET $k]] \
                    [list ms [list PTTL $k]] [list raw [list OBJECT ENCODING $k]]
            foreach d $::dumpers { lappend cmds {*}[$d $k] }
        }
        # Pipelined: send everything, then read everything.
        set pipe ""
        foreach c $cmds { append pipe [encode [lindex $c 1]] }
        foreach c [list $ts $rs] {
            if {[catch {send_raw $c $pipe} err]} { return "db $db: send failed: $err" }
        }
        foreach c $cmds {
            lassign $c mode argv
            set a [call_read $ts]
            set b [call_read $rs]
            if {[compare $mode $a $b] ne ""} {
                return "db $db [repr_cmd $argv]: cairn [show_reply $a], reference [show_reply $b]"
            }
        }
    }
    return ""
}

proc call_read {s} {
    if {[catch {read_reply $s} r]} { return [list fail $r] }
    return [list ok $r]
}

proc replay_hint {seed} {
    return "replay: CAIRN_DIFF_SEED=$seed CAIRN_DIFF_VERBOSE=1 tclsh tests/integration/differential.tcl"
}

# Runs one seed on a fresh pair of servers. Returns "" or an error message
# (first line short, more lines of detail after it).
proc run_seed {seed} {
    set ts [dict get $::pair test]
    set rs [dict get $::pair ref]
    set tc [connect [dict get $ts port]]
    set rc [connect [dict get $rs port]]
    set ti [connect [dict get $ts port]]
    set ri [connect [dict get $rs port]]
    set ::conns [list $tc $rc $ti $ri]

    rng_seed $seed
    set history {}
    for {set idx 0} {$idx < $::ncommands} {incr idx} {
        if {$idx > 0 && $idx % $::check_every == 0} {
            set d [compare_dataset $ti $ri]
            if {$d ne ""} {
                return "dataset differs before command #$idx: $d\n    [replay_hint $seed]"
            }
        }
        lassign [gen_command $idx] mode argv
        set bytes [encode $argv]
        # Send to both before reading, so both execute at about the same time.
        set sa [catch {send_raw $tc $bytes} ea]
        set sb [catch {send_raw $rc $bytes} eb]
        if {$sa} { set a [list fail "send failed: $ea"] } else { set a [call_read $tc] }
        if {$sb} { set b [list fail "send failed: $eb"] } else { set b [call_read $rc] }
        if {$::verbose} {
            puts "  #$idx [repr_cmd $argv]"
            puts "      -> [show_reply $b]"
            if {[compare $mode $a $b] ne ""} {
                puts "      cairn -> [show_reply $a]"
            }
            flush stdout
        }
        lappend history "#$idx [repr_cmd $argv]"
        if {[llength $history] > 8} { set history [lrange $history end-7 end] }
        if {[lindex $b 0] ne "ok"} {
            return "reference server failed at command #$idx [repr_cmd $argv]: [lindex $b 1]"
        }
        if {[compare $mode $a $b] ne ""} {
            set msg "command #$idx [repr_cmd $argv]: replies differ"
            append msg "\n    cairn:     [show_reply $a]"
            append msg "\n    reference: [show_reply $b]"
            append msg "\n    last commands:"
            foreach h $history { append msg "\n      $h" }
            append msg "\n    [replay_hint $seed]"
            return $msg
        }
    }
    set d [compare_dataset $ti $ri]
    if {$d ne ""} {
        return "dataset differs at the end ($::ncommands commands): $d\n    [replay_hint $seed]"
    }
    return ""
}

proc close_conns {} {
    if {[info exists ::conns]} {
        foreach c $::conns { disconnect $c }
        set ::conns {}
    }
}

proc report {ok name msg} {
    if {$ok} {
        puts "\[ok\] $name"
        incr ::passed
    } else {
        puts "\[err\] $name: $msg"
        incr ::failed
    }
    flush stdout
}

# ---------------------------------------------------------------------------
# Introspection: COMMAND, COMMAND INFO, COMMAND DOCS, COMMAND GETKEYS
# ---------------------------------------------------------------------------
# Clients read these replies when they connect (redis-py's cluster client
# builds its key finder from a bare COMMAND), so they are compared once per
# run on a fresh pair of servers, for every command in cairn's COMMAND
# LIST. cairn implements fewer commands than Redis, so COMMAND COUNT and the
# whole table cannot be compared byte for byte; instead each entry cairn has
# is compared with the reference's entry for the same name. Normalised:
#   * subcommands are sorted by name: Redis lists them in the order of a
#     dict whose hash seed is random per process;
#   * the reference's subcommands are limited to those cairn has;
#   * COMMAND DOCS: only the fields cairn returns are compared (cairn has
#     summary, since, group and subcommands; it lacks complexity, doc_flags,
#     deprecated_since, replaced_by, history and arguments). The fields the
#     reference has beyond cairn's are counted and printed as a note.

# Sends every argv of argvs to s in one write, then reads the replies.
# Returns a list of call results ({ok {raw parsed}} or {fail msg}).
proc call_many {s argvs} {
    set pipe ""
    foreach argv $argvs { append pipe [encode $argv] }
    if {[catch {send_raw $s $pipe} err]} {
        return [lrepeat [llength $argvs] [list fail "send failed: $err"]]
    }
    set out {}
    foreach argv $argvs { lappend out [call_read $s] }
    return $out
}

# The name of a COMMAND INFO entry (parsed), or "".
proc info_name {p} {
    if {[lindex $p 0] ne "*"} { return "" }
    return [lindex $p 1 0 1]
}

# A parsed COMMAND INFO entry with its subcommands sorted by name and, when
# keep is not "*", only those named in keep.
proc norm_info {p {keep *}} {
    if {[lindex $p 0] ne "*" || [llength [lindex $p 1]] != 10} { return $p }
    set elems [lindex $p 1]
    set subs [lindex $elems 9]
    if {[lindex $subs 0] eq "*"} {
        set named {}
        foreach e [lindex $subs 1] {
            set n [info_name $e]
            if {$keep ne "*" && $n ni $keep} continue
            lappend named [list $n [norm_info $e]]
        }
        set sorted {}
        foreach pair [lsort -index 0 $named] { lappend sorted [lindex $pair 1] }
        lset elems 9 [list * $sorted]
    }
    return [list * $elems]
}

# The subcommand names of a parsed COMMAND INFO entry.
proc info_subnames {p} {
    set out {}
    if {[lindex $p 0] eq "*" && [llength [lindex $p 1]] == 10} {
        foreach e [lindex $p 1 9 1] { lappend out [info_name $e] }
    }
    return $out
}

# A parsed map, {* {k v ...}} in RESP2 or {% {k v ...}} in RESP3 -> Tcl
# list of {key parsed-value}.
proc flat_pairs {p} {
    set out {}
    if {[lindex $p 0] ni {* %}} { return $out }
    foreach {k v} [lindex $p 1] { lappend out [list [lindex $k 1] $v] }
    return $out
}

# A parsed COMMAND DOCS map normalised against `like`, cairn's map for the
# same command ("" keeps everything): only like's fields, in m's order;
# subcommands sorted by name and limited to like's. With `tally` set, the
# fields m has beyond like's are counted in ::docs_missing.
proc norm_docs {m like {tally 0}} {
    set fields *
    set likesubs {}
    if {$like ne ""} {
        set fields {}
        foreach kv [flat_pairs $like] {
            lappend fields [lindex $kv 0]
            if {[lindex $kv 0] eq "subcommands"} {
                foreach skv [flat_pairs [lindex $kv 1]] { dict set likesubs {*}$skv }
            }
        }
    }
    set out {}
    foreach kv [flat_pairs $m] {
        lassign $kv k v
        if {$fields ne "*" && $k ni $fields} {
            if {$tally} { incr ::docs_missing($k) }
            continue
        }
        if {$k eq "subcommands"} {
            set named {}
            foreach skv [flat_pairs $v] {
                lassign $skv sn sm
                if {$like ne ""} {
                    if {![dict exists $likesubs $sn]} continue
                    set sm [norm_docs $sm [dict get $likesubs $sn] $tally]
                } else {
                    set sm [norm_docs $sm ""]
                }
                lappend named [list $sn $sm]
            }
            set v [list [lindex $v 0] [docs_sorted_map $named]]
        }
        lappend out [list \$ $k] $v
    }
    return [list [lindex $m 0] $out]
}

# {name value} pairs as the body of a parsed map, sorted by name (Redis
# orders subcommands at random).
proc docs_sorted_map {named} {
    set sorted {}
    foreach pair [lsort -index 0 $named] {
        lappend sorted [list \$ [lindex $pair 0]] [lindex $pair 1]
    }
    return $sorted
}

# A parsed COMMAND DOCS map reduced to the named fields, subcommands (kept
# whole) sorted by name and reduced the same way: for the random stream,
# where each reply is normalised on its own (tests/helpers/diff_introspect.tcl).
proc norm_docs_fields {m fields} {
    set out {}
    foreach kv [flat_pairs $m] {
        lassign $kv k v
        if {$k ni $fields} continue
        if {$k eq "subcommands"} {
            set named {}
            foreach skv [flat_pairs $v] {
                lappend named [list [lindex $skv 0] [norm_docs_fields [lindex $skv 1] $fields]]
            }
            set v [list [lindex $v 0] [docs_sorted_map $named]]
        }
        lappend out [list \$ $k] $v
    }
    return [list [lindex $m 0] $out]
}

# Differences are collected, not just the first: one run shows them all.
proc note_diff {listvar what a b} {
    upvar 1 $listvar diffs
    lappend diffs "$what\n      cairn:     [repr $a 600]\n      reference: [repr $b 600]"
}

proc diff_report {name diffs} {
    if {![llength $diffs]} {
        report 1 $name ""
        return
    }
    set msg "[llength $diffs] difference(s)"
    foreach d [lrange $diffs 0 29] { append msg "\n    $d" }
    if {[llength $diffs] > 30} { append msg "\n    ... and [expr {[llength $diffs] - 30}] more" }
    report 0 $name $msg
}

# Commands of Redis versions after the reference's 7.0, which cairn has
# (their own test files check them): left out of the comparison.
set ::newer_than_reference {waitaof}

# cairn's COMMAND LIST, sorted: {names} (top-level and subcommands).
proc cairn_command_list {tc} {
    lassign [call $tc {COMMAND LIST}] st r
    if {$st ne "ok" || [lindex $r 1 0] ne "*"} { error "COMMAND LIST failed: $r" }
    set names {}
    foreach e [lindex $r 1 1] {
        if {[lindex $e 1] ni $::newer_than_reference} { lappend names [lindex $e 1] }
    }
    return [lsort $names]
}

proc introspect_info {tc rc names tag} {
    set argvs {}
    foreach n $names { lappend argvs [list COMMAND INFO $n] }
    # Several names in one call, an unknown one among them, and case.
    lappend argvs {COMMAND INFO get nosuchcommand SET} {COMMAND INFO} \
        {COMMAND INFO CONFIG|GET Object|Encoding} {COMMAND INFO config|nosuch get|x ""}
    set diffs {}
    foreach argv $argvs a [call_many $tc $argvs] b [call_many $rc $argvs] {
        if {[lindex $a 0] ne "ok" || [lindex $b 0] ne "ok"} {
            note_diff diffs [repr_cmd $argv] [lindex $a 1] [lindex $b 1]
            continue
        }
        lassign [lindex $a 1] araw ap
        lassign [lindex $b 1] braw bp
        if {$argv eq {COMMAND INFO}} {
            # The whole table: only its length is cairn's own (checked in
            # the bare COMMAND test); here just that it is an array.
            if {[lindex $ap 0] ne "*"} { note_diff diffs [repr_cmd $argv] $araw $braw }
            continue
        }
        # {* {entry ...}}: one entry (or nil) per name asked.
        if {[lindex $ap 0] ne "*" || [lindex $bp 0] ne "*"
                || [llength [lindex $ap 1]] != [llength [lindex $bp 1]]} {
            if {$araw ne $braw} { note_diff diffs [repr_cmd $argv] $araw $braw }
            continue
        }
        set ae {}
        set be {}
        foreach x [lindex $ap 1] y [lindex $bp 1] {
            lappend ae [norm_info $x]
            lappend be [norm_info $y [info_subnames $x]]
        }
        set na [serialize [list * $ae]]
        set nb [serialize [list * $be]]
        if {$na ne $nb} { note_diff diffs [repr_cmd $argv] $na $nb }
    }
    diff_report "introspection$tag: COMMAND INFO of each of cairn's [llength $names] commands and subcommands" $diffs
}

proc introspect_docs {tc rc names tag} {
    array unset ::docs_missing
    set argvs {}
    foreach n $names { lappend argvs [list COMMAND DOCS $n] }
    lappend argvs {COMMAND DOCS get nosuchcommand SET} {COMMAND DOCS nosuchcommand} \
        {COMMAND DOCS CONFIG|GET Object|Encoding}
    set diffs {}
    foreach argv $argvs a [call_many $tc $argvs] b [call_many $rc $argvs] {
        if {[lindex $a 0] ne "ok" || [lindex $b 0] ne "ok"} {
            note_diff diffs [repr_cmd $argv] [lindex $a 1] [lindex $b 1]
            continue
        }
        lassign [lindex $a 1] araw ap
        lassign [lindex $b 1] braw bp
        # {* {name map name map ...}}: both must name the same commands in
        # the same order; each map is compared on cairn's fields.
        if {[lindex $ap 0] ni {* %} || [lindex $bp 0] ne [lindex $ap 0]
                || [llength [lindex $ap 1]] != [llength [lindex $bp 1]]} {
            if {$araw ne $braw} { note_diff diffs [repr_cmd $argv] $araw $braw }
            continue
        }
        set ae {}
        set be {}
        foreach {an am} [lindex $ap 1] {bn bm} [lindex $bp 1] {
            lappend ae $an [norm_docs $am ""]
            lappend be $bn [norm_docs $bm $am 1]
        }
        set na [serialize [list [lindex $ap 0] $ae]]
        set nb [serialize [list [lindex $ap 0] $be]]
        if {$na ne $nb} { note_diff diffs [repr_cmd $argv] $na $nb }
    }
    set missing {}
    foreach k [lsort [array names ::docs_missing]] { lappend missing "$k ($::docs_missing($k))" }
    if {[llength $missing]} {
        puts "  note$tag: COMMAND DOCS fields the reference returns and cairn does not (count of maps): [join $missing {, }]"
    }
    diff_report "introspection$tag: COMMAND DOCS of each of cairn's [llength $names] commands and subcommands (cairn's fields)" $diffs
}

# Bare COMMAND, as redis-py's cluster client sends it on connect: cairn's
# table must hold one entry per top-level name of its COMMAND LIST, agree
# with its COMMAND COUNT, and each entry must equal the reference's.
proc introspect_bare {tc rc names tag} {
    set diffs {}
    set a [call $tc COMMAND]
    set b [call $rc COMMAND]
    set cnt [call $tc {COMMAND COUNT}]
    if {[lindex $a 0] ne "ok" || [lindex $b 0] ne "ok" || [lindex $cnt 0] ne "ok"} {
        report 0 "introspection$tag: bare COMMAND" "COMMAND failed: cairn [show_reply $a], reference [show_reply $b], count [show_reply $cnt]"
        return
    }
    set ref [dict create]
    foreach e [lindex $b 1 1 1] { dict set ref [info_name $e] $e }
    set seen {}
    set newer 0
    foreach e [lindex $a 1 1 1] {
        set n [info_name $e]
        if {$n in $::newer_than_reference} {
            incr newer
            continue
        }
        lappend seen $n
        if {![dict exists $ref $n]} {
            note_diff diffs "entry $n: not in the reference's table" [serialize $e] ""
            continue
        }
        set na [serialize [norm_info $e]]
        set nb [serialize [norm_info [dict get $ref $n] [info_subnames $e]]]
        if {$na ne $nb} { note_diff diffs "entry $n" $na $nb }
    }
    set top {}
    foreach n $names { if {[string first | $n] < 0} { lappend top $n } }
    if {[lsort $seen] ne $top} {
        note_diff diffs "names in bare COMMAND vs top-level COMMAND LIST" [lsort $seen] $top
    }
    lassign [lindex $cnt 1 1] ct cv
    if {$ct ne ":" || $cv != [llength $seen] + $newer} {
        note_diff diffs "COMMAND COUNT vs entries of COMMAND" [lindex $cnt 1 0] [llength $seen]
    }
    diff_report "introspection$tag: bare COMMAND, entry by entry ([llength $seen] entries)" $diffs
}

# Hand-written command lines for COMMAND GETKEYS: the movable-key commands
# with valid and broken numkeys, SORT's STORE, the variable-flags ones (SET
# with GET, BITFIELD with and without SET), subcommands, and errors. Lines
# whose command cairn does not implement are dropped (Redis would find keys
# there), except the names in ::getkeys_unknown, which neither knows.
set ::getkeys_cases {
    {ZUNIONSTORE dst 2 a b} {ZUNIONSTORE dst 2 a b WEIGHTS 1 2 AGGREGATE MAX}
    {ZUNIONSTORE dst 0 a} {ZUNIONSTORE dst 3 a b} {ZUNIONSTORE dst -1 a}
    {ZUNIONSTORE dst abc a} {ZUNIONSTORE dst 1 a} {ZINTERSTORE dst 1 a}
    {ZDIFFSTORE dst 2 a b} {ZDIFFSTORE dst 1a a b}
    {ZUNION 2 a b} {ZUNION 2 a b WITHSCORES} {ZINTER 1 a} {ZDIFF 3 a b c}
    {ZUNION 0 a} {ZUNION 5 a b} {ZUNION " 1" a} {ZUNION 01 a} {ZUNION 9223372036854775807 a}
    {ZINTERCARD 2 a b LIMIT 1} {ZINTERCARD 1 a} {SINTERCARD 2 a b} {SINTERCARD 0 a}
    {SINTERCARD 3 a b} {SINTERCARD 1 a LIMIT 5}
    {LMPOP 2 a b LEFT} {LMPOP 1 a RIGHT COUNT 2} {LMPOP 3 a b LEFT} {LMPOP 0 a LEFT}
    {BLMPOP 0 2 a b LEFT} {BLMPOP 1.5 1 a RIGHT} {BLMPOP 0 3 a b} {BLMPOP 0 x a b}
    {ZMPOP 2 a b MIN} {ZMPOP 1 a MAX COUNT 3} {ZMPOP 4 a MIN}
    {BZMPOP 0 2 a b MIN} {BZMPOP 0 0 a MIN} {BZMPOP 0 1 a MAX COUNT 2}
    {SORT k} {SORT k BY w_*} {SORT k STORE dst} {SORT k GET # GET o_* STORE dst LIMIT 0 1}
    {SORT k STORE} {SORT k BY nosort STORE d1 STORE d2} {SORT k LIMIT 0 1 STORE d}
    {SORT k store d ALPHA DESC} {SORT k LIMIT 0} {SORT k GET} {SORT k BY}
    {SORT_RO k} {SORT_RO k BY w_* GET o_*} {SORT_RO k STORE d}
    {SET k v} {SET k v GET} {SET k v get EX 10} {SET k v NX} {SET k v GETX} {SET k}
    {BITFIELD k GET u8 0} {BITFIELD k SET u8 0 1} {BITFIELD k INCRBY u8 0 1}
    {BITFIELD k OVERFLOW SAT GET u8 0} {BITFIELD k} {BITFIELD_RO k GET u8 0} {BITFIELD_RO k}
    {MSET a 1 b 2} {MSET a 1 b} {MSETNX a 1 b 2 c 3} {MGET a b c} {DEL a b c} {EXISTS a}
    {UNLINK a b} {TOUCH a} {RENAME a b} {RENAMENX a b} {COPY a b DB 1 REPLACE} {MOVE a 1}
    {LMOVE a b LEFT RIGHT} {BLMOVE a b LEFT RIGHT 0} {RPOPLPUSH a b} {BRPOPLPUSH a b 0}
    {SMOVE a b m} {BLPOP a b 0} {BRPOP a 0} {BZPOPMIN a b 0} {BZPOPMAX a 0}
    {OBJECT ENCODING k} {OBJECT ENCODING} {OBJECT FREQ k} {OBJECT HELP} {OBJECT nosuch k}
    {OBJECT} {MEMORY USAGE k} {MEMORY USAGE k SAMPLES 5} {MEMORY STATS} {memory usage k}
    {SSUBSCRIBE a b} {SPUBLISH ch msg} {SUNSUBSCRIBE a} {SUNSUBSCRIBE} {PUBLISH ch msg}
    {SUBSCRIBE a} {PUBSUB NUMSUB a} {PUBSUB SHARDNUMSUB a}
    {WATCH a b} {PFMERGE d a b} {PFCOUNT a b} {PFADD h a} {PFDEBUG GETREG h} {LCS a b}
    {SUNIONSTORE d a b} {SINTERSTORE d a} {SDIFF a b c} {ZRANGESTORE d s 0 -1}
    {GETEX k PERSIST} {HSET h f v} {HSET h f} {ZADD z 1} {ZADD z 1 m 2} {GETRANGE k 0 1}
    {BITOP AND d a b} {BITOP NOT d a} {BITCOUNT k} {BITPOS k 1 0} {GET} {GET a b}
    {PING} {DBSIZE} {CONFIG GET maxmemory} {CLIENT LIST} {CLIENT} {COMMAND}
    {COMMAND INFO get} {COMMAND GETKEYS GET k} {SELECT 1} {MULTI} {EXEC} {DEBUG OBJECT k}
    {CLUSTER INFO} {CLUSTER KEYSLOT k} {CLUSTER COUNTKEYSINSLOT 1} {CLUSTER GETKEYSINSLOT 1 1}
    {READONLY} {ASKING}
    {NOSUCHCMD a b} {GETT k} {"" k} {"get\x01" k} {"GET k" k}
}
set ::getkeys_unknown [list nosuchcmd gett "" "get\x01" "get k"]
set ::getkeys_pool [list k1 k2 k3 "{t}k4" 0 1 2 3 -1 abc "" STORE BY GET LIMIT WEIGHTS \
        AGGREGATE SUM MIN MAX COUNT LEFT RIGHT NX XX EX 100 # "a b"]

# Command lines for every command and subcommand of cairn's table (name and
# arity from its bare COMMAND): the shortest valid length, one below and
# above it, and for variadic commands a few longer ones, the extra
# arguments drawn from a pool of keys, numbers and keywords.
proc getkeys_generated {table} {
    rng_seed 4242
    set lines {}
    foreach e $table {
        if {[info_name $e] in $::newer_than_reference} continue
        set todo [list $e]
        foreach s [lindex $e 1 9 1] { lappend todo $s }
        foreach x $todo {
            set name [info_name $x]
            set arity [lindex $x 1 1 1]
            set prefix [split [string toupper $name] |]
            set n [expr {abs($arity)}]
            set lens [list $n [expr {$n - 1}] [expr {$n + 1}]]
            if {$arity < 0} { lappend lens [expr {$n + 2}] [expr {$n + 4}] [expr {$n + 7}] }
            foreach len $lens {
                if {$len < [llength $prefix]} continue
                set argv $prefix
                while {[llength $argv] < $len} { lappend argv [pick $::getkeys_pool] }
                lappend lines $argv
            }
        }
    }
    return $lines
}

proc introspect_getkeys {tc rc names table tag} {
    set lines {}
    foreach argv $::getkeys_cases {
        set cmd [string tolower [lindex $argv 0]]
        if {$cmd in $names || $cmd in $::getkeys_unknown} { lappend lines $argv }
    }
    lappend lines {*}[getkeys_generated $table]
    set argvs {}
    foreach argv [lsort -unique $lines] {
        lappend argvs [list COMMAND GETKEYS {*}$argv] [list COMMAND GETKEYSANDFLAGS {*}$argv]
    }
    lappend argvs {COMMAND GETKEYS} {COMMAND GETKEYSANDFLAGS}
    set diffs {}
    foreach argv $argvs a [call_many $tc $argvs] b [call_many $rc $argvs] {
        if {[compare raw $a $b] ne ""} { note_diff diffs [repr_cmd $argv] [lindex $a 1 0] [lindex $b 1 0] }
    }
    diff_report "introspection$tag: COMMAND GETKEYS and GETKEYSANDFLAGS on [llength $argvs] command lines" $diffs
}

proc run_introspection {} {
    set ts [start_server $::test_server {}]
    set rs [start_server $::reference [list [dict get $ts port]]]
    set tc [connect [dict get $ts port]]
    set rc [connect [dict get $rs port]]
    set ::conns [list $tc $rc]
    set names [cairn_command_list $tc]
    lassign [call $tc COMMAND] st r
    if {$st ne "ok" || [lindex $r 1 0] ne "*"} { error "bare COMMAND on cairn failed: $r" }
    set table [lindex $r 1 1]
    introspect_info $tc $rc $names ""
    introspect_docs $tc $rc $names ""
    introspect_bare $tc $rc $names ""
    introspect_getkeys $tc $rc $names $table ""
    # RESP3 clients read flags and ACL categories as sets and key specs and
    # docs as maps: the same checks over HELLO 3 connections.
    set t3 [connect [dict get $ts port]]
    set r3 [connect [dict get $rs port]]
    lappend ::conns $t3 $r3
    foreach s [list $t3 $r3] {
        lassign [call $s {HELLO 3}] st r
        if {$st ne "ok" || [lindex $r 1 0] ne "%"} { error "HELLO 3 failed: $r" }
    }
    introspect_info $t3 $r3 $names " (RESP3)"
    introspect_docs $t3 $r3 $names " (RESP3)"
    introspect_bare $t3 $r3 $names " (RESP3)"
    introspect_getkeys $t3 $r3 $names $table " (RESP3)"
    close_conns
    stop_all_servers
}

proc main {} {
    if {![file executable $::test_server]} {
        report 0 "differential" "server binary $::test_server does not exist or is not executable"
        return
    }
    set start [clock milliseconds]
    foreach seed $::seeds {
        set name "differential seed $seed ($::ncommands commands)"
        set t0 [clock milliseconds]
        if {[catch {
            set ts [start_server $::test_server {}]
            set rs [start_server $::reference [list [dict get $ts port]]]
            set ::pair [dict create test $ts ref $rs]
            run_seed $seed
        } msg opts]} {
            set msg "error: $msg"
            if {$::verbose} { append msg "\n[dict get $opts -errorinfo]" }
        }
        close_conns
        # A server that crashed is worth mentioning next to the difference.
        foreach srv $::servers {
            if {![pid_alive [dict get $srv pid]]} {
                if {$msg eq ""} { set msg "a server exited during the run" }
                append msg "\n    server [dict get $srv binary] (pid [dict get $srv pid]) is no longer running; log tail:"
                foreach l [split [tail_file [dict get $srv log] 10] \n] { append msg "\n    | $l" }
            }
        }
        stop_all_servers
        if {$::verbose} {
            puts "  seed $seed took [expr {[clock milliseconds] - $t0}] ms"
        }
        report [expr {$msg eq ""}] $name $msg
    }
    # Replaying one seed is about that seed only.
    if {![info exists ::env(CAIRN_DIFF_SEED)] || $::env(CAIRN_DIFF_SEED) eq ""} {
        if {[catch {run_introspection} msg opts]} {
            if {$::verbose} { append msg "\n[dict get $opts -errorinfo]" }
            close_conns
            stop_all_servers
            report 0 "introspection" "error: $msg"
        }
    }
    if {$::verbose} {
        puts "  total [expr {[clock milliseconds] - $start}] ms"
    }
}

if {[catch {main} err opts]} {
    close_conns
    stop_all_servers
    puts "\[err\] differential: internal error: $err"
    puts [dict get $opts -errorinfo]
    incr ::failed
}
close_conns
stop_all_servers
puts "$::passed passed, $::failed failed"
exit [expr {$::failed ? 1 : 0}]
