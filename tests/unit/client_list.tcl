# client_list.tcl -- CLIENT LIST fields whose meaning is Redis' bookkeeping:
# qbuf (the bytes of a request not made into arguments yet: for a big
# argument only its payload so far; the whole command while the client runs
# it) and argv-mem (the complete arguments of a request still arriving),
# and the flag letters in Redis' order ('b' for blocked, paused and WAIT).
# The same expectations hold for redis-server.

source [file join [file dirname [info script]] .. helpers harness.tcl]

set srv [start_server]
set c [client $srv]
r $c CLIENT SETNAME ctl

# The CLIENT LIST line of the connection named name.
proc line_of {name} {
    foreach l [split [r $::c CLIENT LIST] "\n"] {
        if {[string match "* name=$name *" $l]} { return $l }
    }
    return ""
}

proc field {name f} {
    if {![regexp " $f=(\\S*)" [line_of $name] -> v]} { error "no $f for $name" }
    return $v
}

# A connection named name that then sent bytes (no reply expected yet).
proc partial {name bytes} {
    set x [client $::srv]
    r $x CLIENT SETNAME $name
    send_raw $x $bytes
    return $x
}

test "qbuf of the client's own command is the whole command" {
    set id [r $c CLIENT ID]
    set l [r $c CLIENT LIST ID $id]
    assert_match "* qbuf=[string length [resp CLIENT LIST ID $id]] *" $l
    # *2 $6 client $4 info: 26 bytes
    assert_match "* qbuf=26 *" [r $c CLIENT INFO]
}

foreach {what bytes qbuf argvmem} {
    "a small argument cut short" "*2\r\n\$3\r\nSET\r\n\$5\r\nab" 2 3
    "a bulk header cut short" "*3\r\n\$3\r\nSET\r\n\$1\r\nk\r\n\$4000" 5 4
    "a small bulk just started" "*3\r\n\$3\r\nSET\r\n\$1\r\nk\r\n\$40000\r\nabc" 3 4
    "an inline command without its newline" "PING" 4 0
    "a multibulk count alone" "*3\r\n" 0 0
} {
    test "qbuf and argv-mem of $what" {
        set name p[incr ::pn]
        set x [partial $name $bytes]
        wait_for {[field $name qbuf] == $qbuf} 5000 "qbuf=$qbuf (line: [line_of $name])"
        assert_equal $argvmem [field $name argv-mem]
        assert_equal client|setname [field $name cmd]
        close_client $x
    }
}

test "qbuf of a big argument counts its payload only, as it arrives" {
    set x [partial big "*1\r\n\$100000\r\n[string repeat v 50000]"]
    wait_for {[field big qbuf] == 50000} 5000 "half the payload (line: [line_of big])"
    send_raw $x [string repeat v 50000]
    wait_for {[field big qbuf] == 100000} 5000 "the whole payload (line: [line_of big])"
    assert_equal 0 [field big argv-mem]
    # The CRLF completes it; the unknown command's error comes back.
    send_raw $x "\r\n"
    catch {read_reply $x} err
    assert_match "*unknown command*" $err
    wait_for {[field big qbuf] == 0} 5000 "empty after the command"
    close_client $x
}

test "qbuf of a big last argument after small ones" {
    set x [partial big2 "*3\r\n\$3\r\nSET\r\n\$2\r\nbk\r\n\$70000\r\n[string repeat z 30000]"]
    wait_for {[field big2 qbuf] == 30000} 5000 "the payload so far (line: [line_of big2])"
    assert_equal 5 [field big2 argv-mem]
    send_raw $x "[string repeat z 40000]\r\n"
    assert_equal OK [read_reply $x]
    assert_equal 70000 [r $c STRLEN bk]
    close_client $x
}

test "flags: blocked, paused and WAIT clients show b" {
    set x [client $srv]
    r $x CLIENT SETNAME blpop
    send_cmd $x BLPOP nosuchlist 0
    wait_for {[field blpop flags] eq "b"} 5000 "BLPOP blocked"
    r $c LPUSH nosuchlist v
    assert_equal {nosuchlist v} [read_reply $x]
    assert_equal N [field blpop flags]

    r $c CLIENT PAUSE 100000 WRITE
    send_cmd $x SET paused v
    wait_for {[field blpop flags] eq "b"} 5000 "held by the pause"
    r $c CLIENT UNPAUSE
    assert_equal OK [read_reply $x]
    assert_equal N [field blpop flags]
    close_client $x
}

test "flags: letters in Redis' order" {
    set x [client $srv]
    r $x CLIENT SETNAME multi
    r $x CLIENT TRACKING on
    r $x WATCH w
    r $c SET w changed
    r $x MULTI
    # MULTI, tracking, dirty CAS
    assert_equal xtd [field multi flags]
    r $x DISCARD
    r $x CLIENT NO-EVICT on
    assert_equal te [field multi flags]
    set m [client $srv]
    r $m CLIENT SETNAME mon
    r $m MONITOR
    assert_equal O [field mon flags]
    set s [client $srv]
    r $s CLIENT SETNAME sub
    r $s SUBSCRIBE ch
    assert_equal P [field sub flags]
    foreach h [list $x $m $s] { close_client $h }
}

finish
