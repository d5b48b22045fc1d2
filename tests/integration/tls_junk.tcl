# tls_junk.tcl -- peers that do TLS wrong. A plaintext client on the TLS
# port, random bytes, a TLS client on the plain port, a handshake cut off
# half-way, a handshake that stalls half-way (abandoned after 10 s), a
# renegotiation request (refused), and thousands of connect/disconnect
# cycles of all of these: each gets a clean close or error, the server keeps
# serving the others, connected_clients returns to its count and resident
# memory stays flat. The outcomes are compared with redis-server 7.0.15
# given the same certificates where Redis behaves the same (it never
# abandons a stalled handshake).

# runner-timeout: 1200
source [file join [file dirname [info script]] .. helpers harness.tcl]
source [file join [file dirname [info script]] .. helpers tls.tcl]

set srv [start_tls_server]
set c [client $srv]
set ref $::cairn(reference)

# The first flight of a real TLS client (its ClientHello), captured from
# tcl-tls talking to a local listener.
proc capture_client_hello {} {
    set ::cap_sock ""
    set l [socket -server {apply {{s a p} { set ::cap_sock $s }}} -myaddr 127.0.0.1 0]
    set port [lindex [fconfigure $l -sockname] 2]
    set tc [tls::socket -async 127.0.0.1 $port]
    fconfigure $tc -blocking 0
    catch {tls::handshake $tc}
    if {$::cap_sock eq ""} { vwait ::cap_sock }
    fconfigure $::cap_sock -translation binary -blocking 0
    set data ""
    set deadline [expr {[clock milliseconds] + 3000}]
    # A record header (5 bytes) says how long the record is.
    while {[clock milliseconds] < $deadline} {
        append data [read $::cap_sock]
        if {[string length $data] >= 5} {
            binary scan $data @3Su len
            if {[string length $data] >= 5 + $len} break
        }
        after 10
    }
    catch {close $tc}
    close $::cap_sock
    close $l
    return $data
}
set hello [capture_client_hello]

# raw_outcome $srv PORT BYTES: "closed" if the server closes a raw
# connection that sent BYTES within 5 s, else "open"; a reply of PONG (a
# plaintext command served) is reported as "served".
proc raw_outcome {srv port bytes} {
    set s [socket 127.0.0.1 $port]
    fconfigure $s -translation binary -blocking 1
    puts -nonewline $s $bytes
    flush $s
    fconfigure $s -blocking 0
    set got ""
    set deadline [expr {[clock milliseconds] + 5000}]
    set out open
    while {[clock milliseconds] < $deadline} {
        if {[catch {read $s} d]} { set out closed; break }
        append got $d
        if {[eof $s]} { set out closed; break }
        after 10
    }
    catch {close $s}
    if {[string first PONG $got] >= 0} { return served }
    return $out
}

# Both ends of the comparison: cairn's outcome, and redis-server's when the
# reference is installed.
proc both_outcomes {script args} {
    set mine [apply [list {srv args} $script] $::srv {*}$args]
    if {$::ref eq ""} { return [list $mine $mine] }
    set rs [start_tls_server -binary $::ref]
    set theirs [apply [list {srv args} $script] $rs {*}$args]
    stop_server $rs
    return [list $mine $theirs]
}

test "Captured ClientHello looks like one" {
    assert {[string length $hello] > 100} "[string length $hello] bytes"
    binary scan $hello cu type
    assert_equal 22 $type "a handshake record"
}

test "Plaintext RESP on the TLS port is closed, not served (as redis-server)" {
    lassign [both_outcomes {
        raw_outcome $srv [dict get $srv tls_port] "PING\r\n*1\r\n\$4\r\nPING\r\n"
    }] mine theirs
    assert_equal closed $mine
    assert_equal $theirs $mine
    assert_equal PONG [r $c PING]
    assert_equal ok [tls_try $srv client]
}

test "Random bytes on the TLS port are closed (as redis-server)" {
    expr {srand(12)}
    set junk ""
    for {set i 0} {$i < 4096} {incr i} { append junk [binary format cu [expr {int(rand() * 256)}]] }
    lassign [both_outcomes {raw_outcome $srv [dict get $srv tls_port] [lindex $args 0]} $junk] mine theirs
    assert_equal closed $mine
    assert_equal $theirs $mine
    # A record header claiming an absurd length, then garbage.
    assert_equal closed [raw_outcome $srv [dict get $srv tls_port] "\x16\x03\x01\xff\xff[string range $junk 0 99]"]
    assert_equal PONG [r $c PING]
}

# openssl s_client, as tcl-tls cannot bound a handshake's wait: the plain
# port reads the ClientHello as a (garbage) inline command.
proc plain_port_outcome {srv} {
    set code [catch {exec timeout 5 openssl s_client -connect 127.0.0.1:[dict get $srv port] \
            -CAfile [cert ca.crt] < /dev/null 2>@1} out opts]
    if {!$code} { return connected }
    set ec [dict get $opts -errorcode]
    if {[lindex $ec 0] eq "CHILDSTATUS" && [lindex $ec 2] == 124} { return "no answer" }
    if {[string match "*CONNECTED*" $out]} { return failed }
    return "other: [string range $out 0 300]"
}

test "A TLS client on the plain port fails cleanly (as redis-server)" {
    if {[auto_execok openssl] eq ""} { skip_test "no openssl command" }
    lassign [both_outcomes {plain_port_outcome $srv}] mine theirs
    assert {$mine in {failed "no answer"}} $mine
    assert_equal $theirs $mine
    assert_equal PONG [r $c PING]
    assert_equal ok [tls_try $srv client]
}

test "A handshake cut off half-way leaves the server serving" {
    set half [string range $hello 0 [expr {[string length $hello] / 2}]]
    for {set i 0} {$i < 20} {incr i} {
        set s [socket 127.0.0.1 [dict get $srv tls_port]]
        fconfigure $s -translation binary
        puts -nonewline $s $half
        flush $s
        close $s
    }
    assert_equal PONG [r $c PING]
    assert_equal ok [tls_try $srv client]
    wait_for {[info_field $c connected_clients] == 1} 5000
}

test "A handshake that stalls half-way does not block others, and is abandoned" -tags {slow} {
    set half [string range $hello 0 [expr {[string length $hello] / 2}]]
    set stalled {}
    for {set i 0} {$i < 5} {incr i} {
        set s [socket 127.0.0.1 [dict get $srv tls_port]]
        fconfigure $s -translation binary
        puts -nonewline $s $half
        flush $s
        lappend stalled $s
    }
    # A connection that sent nothing at all stalls too.
    lappend stalled [socket 127.0.0.1 [dict get $srv tls_port]]
    for {set i 0} {$i < 20} {incr i} { assert_equal ok [tls_try $srv client] }
    assert_equal PONG [r $c PING]
    # Stalled handshakes are not clients.
    assert_equal 1 [info_field $c connected_clients]
    foreach s $stalled {
        assert {[connection_closed $s 15000]} "stalled handshake still open after 15 s"
        close $s
    }
    assert_match "*TLS handshake timed out*" [log_tail $srv 30]
}

test "Renegotiation is refused and the server keeps serving" {
    set openssl [auto_execok openssl]
    if {$openssl eq ""} { skip_test "no openssl command" }
    set script [list sh -c "(echo PING; sleep 1; echo R; sleep 1; echo PING; sleep 1) | \
        $openssl s_client -connect 127.0.0.1:[dict get $srv tls_port] -tls1_2 \
        -cert [cert client.crt] -key [cert client.key] -CAfile [cert ca.crt] 2>&1"]
    catch {exec {*}$script} out
    assert_match "*+PONG*RENEGOTIATING*no renegotiation*" $out
    assert_equal 1 [llength [regexp -all -inline {\+PONG} $out]] "the second PING is not served"
    assert_equal PONG [r $c PING]
    assert_equal ok [tls_try $srv client]
}

# cycles N: N rounds of a good TLS client (PING), a cut handshake, a
# plaintext request on the TLS port and a refused certificate.
proc cycles {srv n hello} {
    set half [string range $hello 0 200]
    for {set i 0} {$i < $n} {incr i} {
        set t [client $srv -tls [tls_opts]]
        r $t PING
        close_client $t
        set s [socket 127.0.0.1 [dict get $srv tls_port]]
        fconfigure $s -translation binary
        puts -nonewline $s [expr {$i % 2 ? $half : "PING\r\n"}]
        flush $s
        close $s
        if {$i % 10 == 0} { tls_try $srv untrusted }
    }
}

# Each cycle is 2-3 connections: the slow run makes about 2,500.
foreach {label n tags} {"Many" 60 {} "Thousands of" 1000 {slow}} {
    test "$label connect/disconnect cycles: clients back to one, memory flat" -tags $tags {
        cycles $srv 30 $hello
        wait_for {[info_field $c connected_clients] == 1} 5000
        after 2500 ;# lingering refused handshakes are freed by then
        set before [rss_kb $srv]
        cycles $srv $n $hello
        assert_equal PONG [r $c PING]
        wait_for {[info_field $c connected_clients] == 1} 10000
        after 2500
        set after [rss_kb $srv]
        # Leaked SSL objects cost ~30 kB each (buffers): even 1% of the
        # cycles leaking would show. (Under ASan, the final test's
        # LeakSanitizer report stands in.)
        if {![under_asan $srv]} {
            assert {$after - $before < 4096} "RSS grew from $before kB to $after kB over $n cycles"
        }
    }
}

test "Clean after all of it (sanitizers)" {
    stop_server $srv
    assert_equal "" [sanitizer_report $srv]
}

finish
