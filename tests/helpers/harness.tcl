# harness.tcl -- the test library sourced by every tests/unit/*.tcl and
# tests/integration/*.tcl file:
#
#   source [file join [file dirname [info script]] .. helpers harness.tcl]
#
# It starts and stops servers, talks RESP2/RESP3 to them, runs tests and
# prints the lines the runner (tests/run) reads:
#   [ok] NAME            [err] NAME: MESSAGE            [skip] NAME: REASON
# and, from `finish`, a last line "N passed, N failed" (", N skipped" when
# anything was skipped). See tests/README.md for the full API.
#
# Configuration comes from the environment (set by tests/run; sensible
# defaults when a file is run directly with `tclsh tests/unit/foo.tcl`):
#   CAIRN_SERVER     absolute path of the server binary (default src/cairn-server)
#   CAIRN_REFERENCE  absolute path of a reference server (may be empty)
#   CAIRN_TMP        a temp dir for this file (default tests/tmp/manual-NAME-PID)
#   CAIRN_TAGS       tag filter, e.g. "-needs-lists" (may be empty)
#   CAIRN_KEEP       1 to keep the temp dir even when everything passed
#
# Everything the harness keeps for itself lives in the ::cairn array and the
# ::cairn_h namespace; the procs used by tests are plain global procs.

package require Tcl 8.6

namespace eval ::cairn_h {
    variable root [file normalize [file join [file dirname [info script]] .. ..]]
    variable passed 0
    variable failed 0
    variable skipped 0
    variable servers {}       ;# pids of the servers started and not yet stopped
    variable server_seq 0
    variable client_seq 0
    variable tmp_is_manual 0
    variable cur_test ""      ;# name of the running test, "" outside tests
}

# ---------------------------------------------------------------------------
# Configuration
# ---------------------------------------------------------------------------

proc ::cairn_h::envget {name default} {
    if {[info exists ::env($name)]} { return $::env($name) }
    return $default
}

set ::cairn(server) [file normalize [::cairn_h::envget CAIRN_SERVER \
        [file join $::cairn_h::root src cairn-server]]]
set ::cairn(reference) [::cairn_h::envget CAIRN_REFERENCE ""]
if {$::cairn(reference) ne ""} {
    set ::cairn(reference) [file normalize $::cairn(reference)]
}
set ::cairn(tags) [string map {, " "} [::cairn_h::envget CAIRN_TAGS ""]]
set ::cairn(keep) [expr {[::cairn_h::envget CAIRN_KEEP 0] in {1 yes true}}]
set ::cairn(timeout) 10000     ;# default reply timeout, milliseconds
if {[info exists ::env(CAIRN_TMP)] && $::env(CAIRN_TMP) ne ""} {
    set ::cairn(tmp) [file normalize $::env(CAIRN_TMP)]
} else {
    set ::cairn(tmp) [file join $::cairn_h::root tests tmp \
            "manual-[file rootname [file tail $::argv0]]-[pid]"]
    set ::cairn_h::tmp_is_manual 1
}
file mkdir $::cairn(tmp)
expr {srand([pid] * 7919 + [clock microseconds] % 100000)}

# ---------------------------------------------------------------------------
# Processes
# ---------------------------------------------------------------------------

# Field 22 of /proc/PID/stat (start time in clock ticks): identifies a process
# together with its pid, so a recycled pid is never mistaken for our server.
proc ::cairn_h::proc_starttime {pid} {
    if {[catch {
        set f [open /proc/$pid/stat r]
        set stat [read $f]
        close $f
    }]} { return "" }
    set rest [string range $stat [expr {[string last ")" $stat] + 2}] end]
    return [lindex $rest 19]
}

proc ::cairn_h::pid_alive {pid} {
    if {[catch {
        set f [open /proc/$pid/stat r]
        set stat [read $f]
        close $f
    }]} { return 0 }
    set state [string index [string range $stat [expr {[string last ")" $stat] + 2}] end] 0]
    return [expr {$state ni {Z X x}}]
}

proc ::cairn_h::signal {pid sig} {
    catch {exec kill -$sig $pid 2>/dev/null}
}

# Waits up to ms milliseconds for pid to exit; returns 1 if it did.
proc ::cairn_h::wait_exit {pid ms} {
    set deadline [expr {[clock milliseconds] + $ms}]
    while {[pid_alive $pid]} {
        if {[clock milliseconds] > $deadline} { return 0 }
        after 10
    }
    # Reap detached children (Tcl does so on its next exec/open).
    catch {exec true}
    return 1
}

proc ::cairn_h::forget {pid} {
    variable servers
    set i [lsearch -exact $servers $pid]
    if {$i >= 0} { set servers [lreplace $servers $i $i] }
}

proc ::cairn_h::kill_all {} {
    variable servers
    foreach pid $servers { signal $pid KILL }
    foreach pid $servers { wait_exit $pid 2000 }
    set servers {}
}

# Is TCP port free? Probe by binding it (all addresses and loopback).
proc ::cairn_h::port_free {port} {
    foreach myaddr {{} 127.0.0.1} {
        if {$myaddr eq ""} {
            set cmd [list socket -server ::cairn_h::noop $port]
        } else {
            set cmd [list socket -server ::cairn_h::noop -myaddr $myaddr $port]
        }
        if {[catch $cmd s]} { return 0 }
        close $s
    }
    return 1
}
proc ::cairn_h::noop {args} {}

# Random ports in 20000..31999, below Linux' default ephemeral range
# (32768..60999), so outgoing connections do not take them.
proc ::cairn_h::find_port {} {
    for {set i 0} {$i < 200} {incr i} {
        set port [expr {20000 + int(rand() * 12000)}]
        if {[port_free $port]} { return $port }
    }
    error "cannot find a free TCP port"
}

proc ::cairn_h::tail_file {path n} {
    if {[catch {
        set f [open $path r]
        fconfigure $f -translation binary
        set data [read $f]
        close $f
    }]} { return "" }
    set lines [split [string trimright $data \n] \n]
    return [join [lrange $lines end-[expr {$n - 1}] end] \n]
}

# Spawns the server described by the dict srv (binary, port, dir, log,
# config, args) and waits until it answers. Returns srv with pid set.
proc ::cairn_h::spawn {srv} {
    variable servers
    set binary [dict get $srv binary]
    set dir [dict get $srv dir]
    set argv [list $binary [dict get $srv conffile] \
            --port [dict get $srv port] --dir $dir --logfile [dict get $srv log] \
            --save "" --appendonly no --enable-debug-command yes]
    foreach {k v} [dict get $srv config] {
        lappend argv --[string trimleft $k -] $v
    }
    lappend argv {*}[dict get $srv args]
    set out [file join $dir stdout]
    set pid [exec {*}$argv >>& $out &]
    lappend servers $pid
    # Record the pid so the runner can kill it if this file dies.
    set f [open [file join $::cairn(tmp) servers.pids] a]
    puts $f "$pid [proc_starttime $pid]"
    close $f
    dict set srv pid $pid
    return $srv
}

# Waits until srv answers PING (any reply but -LOADING counts, so
# a server with requirepass answering -NOAUTH is up). Returns "" when up,
# else a reason.
proc ::cairn_h::wait_ready {srv ms} {
    set deadline [expr {[clock milliseconds] + $ms}]
    while {[clock milliseconds] < $deadline} {
        if {![pid_alive [dict get $srv pid]]} { return "server process exited" }
        if {![catch {socket [dict get $srv host] [dict get $srv port]} s]} {
            set ok 0
            catch {
                fconfigure $s -translation binary -blocking 1
                puts -nonewline $s "PING\r\n"
                flush $s
                fconfigure $s -blocking 0
                set line ""
                set until [expr {[clock milliseconds] + 1000}]
                while {[clock milliseconds] < $until} {
                    append line [read $s]
                    if {[string first \n $line] >= 0 || [eof $s]} break
                    after 5
                }
                if {[string index $line 0] in {+ -} && [string range $line 0 7] ne "-LOADING"} {
                    set ok 1
                }
            }
            catch {close $s}
            if {$ok} { return "" }
        }
        after 20
    }
    return "server did not answer PING within [expr {$ms / 1000}]s"
}

proc ::cairn_h::startup_error {srv reason} {
    set msg "cannot start server [dict get $srv binary] on port [dict get $srv port]: $reason"
    set tail [tail_file [dict get $srv log] 15]
    set out [tail_file [file join [dict get $srv dir] stdout] 10]
    if {$tail ne ""} { append msg "\nlog tail:\n$tail" }
    if {$out ne ""} { append msg "\nstdout/stderr:\n$out" }
    return $msg
}

# start_server ?-config {directive value ...}? ?-binary PATH? ?-args {argv}?
# Returns a server handle: a dict with keys host port pid dir log binary
# (plus conffile config args used by restart_server).
proc start_server {args} {
    set config {}
    set conftext ""
    set binary $::cairn(server)
    set extra {}
    foreach {opt val} $args {
        switch -- $opt {
            -config { set config $val }
            -binary { set binary [file normalize $val] }
            -args { set extra $val }
            -conftext { set conftext $val }
            default { error "start_server: unknown option $opt" }
        }
    }
    if {[llength $args] % 2} { error "start_server: odd number of arguments" }
    if {[llength $config] % 2} { error "start_server: -config needs directive/value pairs" }
    if {![file executable $binary]} {
        error "cannot start server: $binary does not exist or is not executable"
    }
    set dir [file join $::cairn(tmp) "server-[incr ::cairn_h::server_seq]"]
    file delete -force $dir
    file mkdir $dir
    set conffile [file join $dir server.conf]
    set f [open $conffile w]
    puts $f "# written by tests/helpers/harness.tcl; settings are passed on the command line"
    puts -nonewline $f $conftext
    close $f
    set srv [dict create host 127.0.0.1 port 0 pid 0 dir $dir \
            log [file join $dir server.log] binary $binary \
            conffile $conffile config $config args $extra]
    # Another process may grab the port between the probe and the bind:
    # retry with a new port when the server fails that way.
    for {set attempt 1} {1} {incr attempt} {
        dict set srv port [::cairn_h::find_port]
        set srv [::cairn_h::spawn $srv]
        set reason [::cairn_h::wait_ready $srv 10000]
        if {$reason eq ""} { return $srv }
        set pid [dict get $srv pid]
        ::cairn_h::signal $pid KILL
        ::cairn_h::wait_exit $pid 2000
        ::cairn_h::forget $pid
        set log [::cairn_h::tail_file [dict get $srv log] 30]
        append log \n [::cairn_h::tail_file [file join [dict get $srv dir] stdout] 30]
        if {$attempt < 3 && [string match -nocase "*address already in use*" $log]} {
            continue
        }
        error [::cairn_h::startup_error $srv $reason]
    }
}

# stop_server $srv: SIGTERM, wait up to 10s, then SIGKILL.
proc stop_server {srv} {
    set pid [dict get $srv pid]
    ::cairn_h::signal $pid TERM
    if {![::cairn_h::wait_exit $pid 10000]} {
        ::cairn_h::signal $pid KILL
        ::cairn_h::wait_exit $pid 5000
    }
    ::cairn_h::forget $pid
    return
}

# kill_server $srv: SIGKILL.
proc kill_server {srv} {
    set pid [dict get $srv pid]
    ::cairn_h::signal $pid KILL
    ::cairn_h::wait_exit $pid 5000
    ::cairn_h::forget $pid
    return
}

# restart_server $srv: stops the server (if running) and starts it again
# with the same binary, port, dir and settings. Returns the new handle
# (the pid changes): set srv [restart_server $srv]
proc restart_server {srv} {
    if {[server_alive $srv]} { stop_server $srv }
    ::cairn_h::forget [dict get $srv pid]
    for {set i 0} {$i < 100} {incr i} {
        if {[::cairn_h::port_free [dict get $srv port]]} break
        after 50
    }
    set srv [::cairn_h::spawn $srv]
    set reason [::cairn_h::wait_ready $srv 10000]
    if {$reason ne ""} {
        kill_server $srv
        error [::cairn_h::startup_error $srv $reason]
    }
    return $srv
}

proc server_alive {srv} {
    return [::cairn_h::pid_alive [dict get $srv pid]]
}

# sanitizer_report $srv: the first AddressSanitizer, LeakSanitizer or UBSan
# report in the server's stdout/stderr (DIR/stdout), or "" (always "" for a
# build without sanitizers). Leaks are reported only once the server exited.
proc sanitizer_report {srv} {
    set text [::cairn_h::tail_file [file join [dict get $srv dir] stdout] 1000000]
    foreach pat {"ERROR: AddressSanitizer" "ERROR: LeakSanitizer" "runtime error:"} {
        set i [string first $pat $text]
        if {$i >= 0} {
            return [string range $text [expr {max(0, $i - 200)}] [expr {$i + 3000}]]
        }
    }
    return ""
}

# log_tail $srv ?n?: the last n lines (default 20) of the server log.
proc log_tail {srv {n 20}} {
    return [::cairn_h::tail_file [dict get $srv log] $n]
}

# read_bytes PATH / write_bytes PATH DATA: a whole file, in binary (the
# snapshot and AOF tests cut, flip and copy files byte for byte).
proc read_bytes {path} {
    set f [open $path rb]
    set data [read $f]
    close $f
    return $data
}
proc write_bytes {path data} {
    set f [open $path wb]
    puts -nonewline $f $data
    close $f
}

# ---------------------------------------------------------------------------
# Clients
# ---------------------------------------------------------------------------
# A client handle is the socket channel name. Per-client state:
#   ::cairn_h::buf($c)   bytes received and not yet consumed
#   ::cairn_h::pos($c)   index of the first unconsumed byte in buf
#   ::cairn_h::push($c)  queued RESP3 push messages (parsed)
#   ::cairn_h::tmo($c)   read timeout in ms

# client $srv ?-resp 2|3? ?-timeout MS? ?-auth PASSWORD? ?-user USER?
#            ?-tls {tls::socket options}? ?-port PORT?
# With -tls the connection is TLS (tcl-tls), to -port or else the server's
# tls_port key, and the handshake is done (or has failed) on return.
proc client {srv args} {
    set resp 2
    set timeout $::cairn(timeout)
    set auth ""
    set user default
    set tls ""
    set port ""
    foreach {opt val} $args {
        switch -- $opt {
            -resp { set resp $val }
            -timeout { set timeout $val }
            -auth { set auth $val }
            -user { set user $val }
            -tls { set tls $val }
            -port { set port $val }
            default { error "client: unknown option $opt" }
        }
    }
    if {$tls ne ""} {
        package require tls
        if {$port eq ""} { set port [dict get $srv tls_port] }
        set c [tls::socket {*}$tls [dict get $srv host] $port]
        if {[catch {tls::handshake $c} err]} {
            catch {close $c}
            error "TLS handshake failed: $err"
        }
    } else {
        if {$port eq ""} { set port [dict get $srv port] }
        set c [socket [dict get $srv host] $port]
    }
    fconfigure $c -translation binary -blocking 1 -buffering full
    set ::cairn_h::buf($c) ""
    set ::cairn_h::pos($c) 0
    set ::cairn_h::push($c) {}
    set ::cairn_h::tmo($c) $timeout
    if {$resp == 3} {
        if {$auth ne ""} {
            r $c HELLO 3 AUTH $user $auth
        } else {
            r $c HELLO 3
        }
    } elseif {$auth ne ""} {
        r $c AUTH $user $auth
    }
    return $c
}

proc close_client {c} {
    catch {close $c}
    foreach v {buf pos push tmo} { unset -nocomplain ::cairn_h::${v}($c) }
    return
}

# Serializes a command as a RESP multibulk request. Each argument is a byte
# string; an argument holding characters above U+00FF is UTF-8 encoded.
proc ::cairn_h::encode {argv} {
    set out "*[llength $argv]\r\n"
    foreach a $argv {
        if {![regexp {^[\u0000-\u00ff]*$} $a]} {
            set a [encoding convertto utf-8 $a]
        }
        append out "\$[string length $a]\r\n$a\r\n"
    }
    return $out
}

# send_raw $c BYTES: writes bytes as they are.
proc send_raw {c bytes} {
    if {[catch {
        fconfigure $c -blocking 1
        puts -nonewline $c $bytes
        flush $c
    } err]} {
        error "write failed: $err"
    }
    return
}

# send_cmd $c CMD arg...: writes one request without reading the reply.
proc send_cmd {c args} {
    send_raw $c [::cairn_h::encode $args]
}

# Makes sure at least n unconsumed bytes are buffered; waits up to the
# client's timeout. Errors out on timeout or connection close.
proc ::cairn_h::need {c n} {
    variable buf
    variable pos
    variable tmo
    if {[string length $buf($c)] - $pos($c) >= $n} return
    set deadline [expr {[clock milliseconds] + $tmo($c)}]
    fconfigure $c -blocking 0
    while {[string length $buf($c)] - $pos($c) < $n} {
        set data [read $c]
        if {$data ne ""} {
            append buf($c) $data
            continue
        }
        if {[eof $c]} {
            error "connection closed by server"
        }
        set left [expr {$deadline - [clock milliseconds]}]
        if {$left <= 0} {
            error "timeout waiting for reply"
        }
        wait_readable $c $left
    }
}

proc ::cairn_h::wait_readable {c ms} {
    variable ev
    set ev($c) 0
    fileevent $c readable [list set ::cairn_h::ev($c) 1]
    set id [after $ms [list set ::cairn_h::ev($c) 2]]
    vwait ::cairn_h::ev($c)
    after cancel $id
    catch {fileevent $c readable {}}
    unset ev($c)
}

# Drops consumed bytes from the buffer once more than min of them piled up.
# Only called between replies: a reply being parsed keeps its offsets.
proc ::cairn_h::compact {c {min 65536}} {
    variable buf
    variable pos
    if {$pos($c) > $min} {
        set buf($c) [string range $buf($c) $pos($c) end]
        set pos($c) 0
    } elseif {$pos($c) > 0 && $pos($c) == [string length $buf($c)]} {
        set buf($c) ""
        set pos($c) 0
    }
}

# Reads a line (without CRLF).
proc ::cairn_h::line {c} {
    variable buf
    variable pos
    while {1} {
        set i [string first "\r\n" $buf($c) $pos($c)]
        if {$i >= 0} {
            set l [string range $buf($c) $pos($c) [expr {$i - 1}]]
            set pos($c) [expr {$i + 2}]
            return $l
        }
        need $c [expr {[string length $buf($c)] - $pos($c) + 1}]
    }
}

proc ::cairn_h::bytes {c n} {
    variable buf
    variable pos
    need $c [expr {$n + 2}]
    set s [string range $buf($c) $pos($c) [expr {$pos($c) + $n - 1}]]
    incr pos($c) [expr {$n + 2}]
    return $s
}

proc ::cairn_h::count {c l} {
    set n [string range $l 1 end]
    if {![string is entier -strict $n]} {
        error "protocol error: bad length in reply line '$l'"
    }
    return $n
}

# Parses one reply. Returns {type value}; type is "err" for error replies
# (top-level or nested as values), "push" for pushes, else "val".
# Nested errors are returned as their message text.
proc ::cairn_h::parse {c} {
    set l [line $c]
    set t [string index $l 0]
    set rest [string range $l 1 end]
    switch -- $t {
        + { return [list val $rest] }
        - { return [list err $rest] }
        : { return [list val $rest] }
        ( { return [list val $rest] }
        , { return [list val $rest] }
        _ { return [list val {}] }
        # { return [list val [expr {$rest eq "t" ? 1 : 0}]] }
        $ - ! - = {
            set n [count $c $l]
            if {$n < 0} { return [list val {}] }
            set s [bytes $c $n]
            if {$t eq "!"} { return [list err $s] }
            if {$t eq "="} { set s [string range $s 4 end] }
            return [list val $s]
        }
        * - ~ - > {
            set n [count $c $l]
            if {$n < 0} { return [list val {}] }
            set out {}
            for {set i 0} {$i < $n} {incr i} {
                lappend out [lindex [parse $c] 1]
            }
            return [list [expr {$t eq ">" ? "push" : "val"}] $out]
        }
        % - | {
            set n [count $c $l]
            set out {}
            for {set i 0} {$i < 2 * $n} {incr i} {
                lappend out [lindex [parse $c] 1]
            }
            if {$t eq "|"} {
                # Attribute: remember it and return the reply it decorates.
                set ::cairn_h::attr($c) $out
                return [parse $c]
            }
            return [list val $out]
        }
        default {
            error "protocol error: unexpected reply line '$l'"
        }
    }
}

# read_reply $c: reads one reply (queuing RESP3 pushes, see read_push) and
# returns it as a Tcl value; an error reply raises a Tcl error whose message
# is the error text without the leading '-'.
proc read_reply {c} {
    ::cairn_h::compact $c
    while {1} {
        lassign [::cairn_h::parse $c] type value
        switch -- $type {
            val { return $value }
            err { return -code error -errorcode [list CAIRN REPLY $value] $value }
            push { lappend ::cairn_h::push($c) $value }
        }
    }
}

# read_push $c: the next RESP3 push message (queued or read from the socket).
# In RESP2, pubsub messages are plain arrays: use read_reply.
proc read_push {c} {
    ::cairn_h::compact $c
    if {[llength $::cairn_h::push($c)]} {
        set m [lindex $::cairn_h::push($c) 0]
        set ::cairn_h::push($c) [lrange $::cairn_h::push($c) 1 end]
        return $m
    }
    while {1} {
        lassign [::cairn_h::parse $c] type value
        if {$type eq "push"} { return $value }
        error "expected a push message, got: $value"
    }
}

# read_raw_reply $c: reads one reply and returns its exact bytes.
proc read_raw_reply {c} {
    ::cairn_h::compact $c 0
    ::cairn_h::parse $c
    return [string range $::cairn_h::buf($c) 0 [expr {$::cairn_h::pos($c) - 1}]]
}

# r $c CMD arg...: sends a command and returns the parsed reply.
proc r {c args} {
    send_raw $c [::cairn_h::encode $args]
    return [read_reply $c]
}

# rraw $c CMD arg...: sends a command and returns the reply's exact bytes.
proc rraw {c args} {
    send_raw $c [::cairn_h::encode $args]
    return [read_raw_reply $c]
}

# set_timeout $c MS: the reply timeout of one client.
proc set_timeout {c ms} {
    set ::cairn_h::tmo($c) $ms
}

# connection_closed $c ?ms?: 1 if the server closed the connection (reads
# until EOF, discarding data, for up to ms milliseconds), else 0.
proc connection_closed {c {ms 3000}} {
    set deadline [expr {[clock milliseconds] + $ms}]
    fconfigure $c -blocking 0
    while {1} {
        if {[catch {read $c} data]} { return 1 }
        if {$data eq "" && [eof $c]} { return 1 }
        if {$data ne ""} continue
        set left [expr {$deadline - [clock milliseconds]}]
        if {$left <= 0} { return 0 }
        ::cairn_h::wait_readable $c $left
    }
}

# server_info $c ?section?: INFO fields as a dict.
proc server_info {c {section ""}} {
    if {$section eq ""} {
        set text [r $c INFO]
    } else {
        set text [r $c INFO $section]
    }
    set d [dict create]
    foreach l [split $text \n] {
        set l [string trimright $l \r]
        if {$l eq "" || [string index $l 0] eq "#"} continue
        set i [string first : $l]
        if {$i < 0} continue
        dict set d [string range $l 0 [expr {$i - 1}]] [string range $l [expr {$i + 1}] end]
    }
    return $d
}

# info_field $c FIELD ?section?: one INFO field (empty if absent).
# cairn's own introspection, for tests of the single-lookup and single-
# propagation rules. They act on the test file's main client, $::c.
# resp ARG...: a command's RESP encoding, as the propagation stream holds it.
proc resp {args} { return [::cairn_h::encode $args] }
# lookups CMD ARG...: run a command, return its keyspace searches (DEBUG LOOKUPS).
proc lookups {args} {
    r $::c DEBUG LOOKUPS RESET
    r $::c {*}$args
    return [r $::c DEBUG LOOKUPS]
}
# propagated: the stream bytes since the previous call (DEBUG PROPAGATED).
proc propagated {} { return [r $::c DEBUG PROPAGATED] }

# events_and_reply $p CMD arg...: sends the command and a PING on the RESP3
# client p and returns what came back before the PONG, in stream order:
# "reply" for the command's reply, the event name of each push message.
proc events_and_reply {p args} {
    send_cmd $p {*}$args
    send_cmd $p PING
    set out {}
    while {1} {
        set raw [read_raw_reply $p]
        if {$raw eq "+PONG\r\n"} { return $out }
        if {[string index $raw 0] eq ">"} {
            if {![regexp {\$\d+\r\n([^\r]*)\r\n$} $raw -> event]} { error "bad push $raw" }
            lappend out $event
        } else {
            lappend out reply
        }
    }
}

# check_events {CMD ORDER ...}: with every keyspace event class on, runs each
# command on a RESP3 client subscribed to db 0's keyspace channel of $::srv
# and asserts the order of its events and reply (see events_and_reply).
proc check_events {cases} {
    set p [client $::srv -resp 3]
    r $::c CONFIG SET notify-keyspace-events KAmn
    catch {
        send_cmd $p PSUBSCRIBE __keyspace@0__:*
        assert_equal {psubscribe __keyspace@0__:* 1} [read_push $p]
        foreach {cmd order} $cases {
            assert_equal $order [events_and_reply $p {*}$cmd] $cmd
        }
    } err
    r $::c CONFIG SET notify-keyspace-events ""
    close_client $p
    if {$err ne ""} { error $err }
}

proc info_field {c field {section ""}} {
    set d [server_info $c $section]
    if {[dict exists $d $field]} { return [dict get $d $field] }
    return ""
}

# ---------------------------------------------------------------------------
# Tests and assertions
# ---------------------------------------------------------------------------

# Does a test with these tags run under the CAIRN_TAGS filter? Returns ""
# if it runs, else the reason it is skipped. Filter entries "-TAG" exclude
# tests having TAG; plain "TAG" (or "+TAG") entries, if any, restrict the
# run to tests having at least one of them.
proc ::cairn_h::tag_skip_reason {tags} {
    set include {}
    foreach f $::cairn(tags) {
        if {[string index $f 0] eq "-"} {
            set t [string range $f 1 end]
            if {$t in $tags} { return "tag $t excluded" }
        } else {
            lappend include [string trimleft $f +]
        }
    }
    if {[llength $include]} {
        foreach t $include {
            if {$t in $tags} { return "" }
        }
        return "no tag in {$include}"
    }
    return ""
}

proc ::cairn_h::emit {line} {
    puts stdout $line
    flush stdout
}

proc ::cairn_h::oneline_report {kind name msg} {
    set lines [split [string trimright $msg \n] \n]
    set out "\[$kind\] $name: [lindex $lines 0]"
    foreach l [lrange $lines 1 end] { append out "\n    $l" }
    return $out
}

# test NAME ?-tags {tag ...}? BODY
proc test {name args} {
    set tags {}
    if {[llength $args] == 3 && [lindex $args 0] eq "-tags"} {
        set tags [lindex $args 1]
        set body [lindex $args 2]
    } elseif {[llength $args] == 1} {
        set body [lindex $args 0]
    } else {
        error "usage: test NAME ?-tags {tags}? BODY"
    }
    set reason [::cairn_h::tag_skip_reason $tags]
    if {$reason ne ""} {
        skip $name $reason
        return
    }
    set ::cairn_h::cur_test $name
    set code [catch {uplevel 1 $body} result opts]
    set ::cairn_h::cur_test ""
    if {$code == 1 && [lrange [dict get $opts -errorcode] 0 1] eq {CAIRN SKIP}} {
        skip $name $result
    } elseif {$code == 1} {
        incr ::cairn_h::failed
        set msg $result
        if {[lrange [dict get $opts -errorcode] 0 1] ni {{CAIRN ASSERT} {CAIRN REPLY}}} {
            # An unexpected Tcl error: show where it came from.
            set info [dict get $opts -errorinfo]
            set trace [lrange [split $info \n] 1 8]
            append msg "\n" [join $trace \n]
        }
        ::cairn_h::emit [::cairn_h::oneline_report err $name $msg]
        ::cairn_h::report_dead_servers
    } else {
        # ok, return, break, continue all count as passing
        incr ::cairn_h::passed
        ::cairn_h::emit "\[ok\] $name"
    }
    return
}

proc ::cairn_h::report_dead_servers {} {
    foreach pid $::cairn_h::servers {
        if {![pid_alive $pid]} {
            emit "    (server pid $pid is no longer running)"
            forget $pid
        }
    }
}

# skip NAME REASON: records a skipped test.
proc skip {name reason} {
    incr ::cairn_h::skipped
    ::cairn_h::emit "\[skip\] $name: $reason"
}

# skip_test REASON: inside a test body, ends the test as skipped.
proc skip_test {reason} {
    return -code error -errorcode {CAIRN SKIP} $reason
}

# finish: prints the summary, kills remaining servers, exits 0 or 1.
proc finish {} {
    ::cairn_h::kill_all
    set line "$::cairn_h::passed passed, $::cairn_h::failed failed"
    if {$::cairn_h::skipped} { append line ", $::cairn_h::skipped skipped" }
    ::cairn_h::emit $line
    if {$::cairn_h::tmp_is_manual && !$::cairn_h::failed && !$::cairn(keep)} {
        catch {file delete -force $::cairn(tmp)}
    }
    exit [expr {$::cairn_h::failed ? 1 : 0}]
}

proc ::cairn_h::fail {msg} {
    return -level 2 -code error -errorcode {CAIRN ASSERT} $msg
}

proc ::cairn_h::show {v} {
    if {[string length $v] > 300} {
        set v "[string range $v 0 299]...([string length $v] bytes)"
    }
    # Make control bytes visible.
    return [string map {\r \\r \n \\n \t \\t \0 \\0} $v]
}

# assert_equal EXPECTED ACTUAL ?MSG?
proc assert_equal {expected actual {msg ""}} {
    if {$expected ne $actual} {
        set m "expected '[::cairn_h::show $expected]' but got '[::cairn_h::show $actual]'"
        if {$msg ne ""} { set m "$msg: $m" }
        ::cairn_h::fail $m
    }
}

# assert_not_equal UNEXPECTED ACTUAL ?MSG?
proc assert_not_equal {unexpected actual {msg ""}} {
    if {$unexpected eq $actual} {
        set m "did not expect '[::cairn_h::show $actual]'"
        if {$msg ne ""} { set m "$msg: $m" }
        ::cairn_h::fail $m
    }
}

# assert_match GLOB ACTUAL ?MSG?
proc assert_match {pattern actual {msg ""}} {
    if {![string match $pattern $actual]} {
        set m "expected '[::cairn_h::show $actual]' to match '[::cairn_h::show $pattern]'"
        if {$msg ne ""} { set m "$msg: $m" }
        ::cairn_h::fail $m
    }
}

# assert_error GLOB BODY: BODY (run in the caller's scope) must raise an
# error whose message matches GLOB. Returns the message.
proc assert_error {pattern body} {
    set code [catch {uplevel 1 $body} result]
    if {$code != 1} {
        ::cairn_h::fail "expected an error matching '[::cairn_h::show $pattern]' but got '[::cairn_h::show $result]'"
    }
    if {![string match $pattern $result]} {
        ::cairn_h::fail "expected an error matching '[::cairn_h::show $pattern]' but got error '[::cairn_h::show $result]'"
    }
    return $result
}

# assert_range VALUE MIN MAX (inclusive)
proc assert_range {value min max {msg ""}} {
    if {![string is double -strict $value] || $value < $min || $value > $max} {
        set m "expected '[::cairn_h::show $value]' to be in range $min..$max"
        if {$msg ne ""} { set m "$msg: $m" }
        ::cairn_h::fail $m
    }
}

# assert {EXPR} ?MSG?: the expression is evaluated in the caller's scope.
proc assert {cond {msg ""}} {
    set code [catch {uplevel 1 [list expr $cond]} res]
    if {$code == 1} {
        ::cairn_h::fail "assertion {$cond} raised: $res"
    }
    if {!$res} {
        set vals [uplevel 1 [list subst -nobackslashes -nocommands $cond]]
        set m "assertion failed: $cond"
        if {$vals ne $cond} { append m " (with values: [::cairn_h::show $vals])" }
        if {$msg ne ""} { set m "$msg: $m" }
        ::cairn_h::fail $m
    }
}

# wait_for {COND} ?TIMEOUT_MS? ?MSG?: polls COND (an expression evaluated in
# the caller's scope) until true; fails after TIMEOUT_MS (default 10000).
proc wait_for {cond {timeout 10000} {msg ""}} {
    set deadline [expr {[clock milliseconds] + $timeout}]
    set delay 5
    while {1} {
        if {[uplevel 1 [list expr $cond]]} return
        if {[clock milliseconds] > $deadline} break
        after $delay
        if {$delay < 100} { set delay [expr {$delay * 2}] }
    }
    set m "condition {$cond} still false after ${timeout}ms"
    if {$msg ne ""} { set m "$msg: $m" }
    ::cairn_h::fail $m
}

# Kill our servers even when the file ends through a plain `exit`.
rename exit ::cairn_h::real_exit
proc exit {{code 0}} {
    ::cairn_h::kill_all
    ::cairn_h::real_exit $code
}
