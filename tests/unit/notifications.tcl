# notifications.tcl -- keyspace notifications (notify-keyspace-events) for
# every string and generic-key command: the exact sequence of
# __keyspace@DB__:KEY / __keyevent@DB__:EVENT messages Redis 7.0 publishes,
# lazy and active expiry, keymiss ('m') and new-key ('n') events, class
# filtering, MULTI/EXEC, other databases and RESP3 push delivery.
#
# A RESP2 subscriber PSUBSCRIBEs '__key*__:*' and also SUBSCRIBEs a marker
# channel: after each command the publisher client PUBLISHes a marker there,
# and everything the subscriber received before the marker is exactly what
# the command published (all deliveries happen in order, synchronously).

source [file join [file dirname [info script]] .. helpers harness.tcl]

set srv [start_server]
set c [client $srv]          ;# runs the commands
set pub [client $srv]        ;# publishes the markers
set s [client $srv]          ;# the subscriber
set_timeout $s 5000
set pattern __key*__:*
set marker notif:marker

r $c CONFIG SET notify-keyspace-events KEA
send_cmd $s PSUBSCRIBE $pattern
assert_equal [list psubscribe $pattern 1] [read_reply $s]
send_cmd $s SUBSCRIBE $marker
assert_equal [list subscribe $marker 2] [read_reply $s]

# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------

# drain: the notifications the subscriber received since the last drain, as
# a list of {channel payload} pairs (up to the next marker).
set marker_seq 0
proc drain {} {
    set id [incr ::marker_seq]
    r $::pub PUBLISH $::marker $id
    set out {}
    while {1} {
        set m [read_reply $::s]
        if {[lindex $m 0] eq "message" && [lindex $m 1] eq $::marker} {
            assert_equal $id [lindex $m 2] "marker"
            return $out
        }
        assert_equal pmessage [lindex $m 0] "message kind of [list $m]"
        assert_equal $::pattern [lindex $m 1] "pattern of [list $m]"
        assert_equal 4 [llength $m] "length of [list $m]"
        lappend out [lrange $m 2 3]
    }
}

# ev CMD arg...: runs the command on $c and returns the notifications it
# caused. An error reply is raised as usual.
proc ev {args} {
    r $::c {*}$args
    return [drain]
}

# ev_err GLOB CMD arg...: the command must fail with an error matching GLOB;
# returns the notifications it caused.
proc ev_err {glob args} {
    assert_error $glob {r $::c {*}$args}
    return [drain]
}

# want {event key ?db?} ...: the messages of these events with both K and E
# enabled: for each, the keyspace message then the keyevent message.
proc want {args} {
    set out {}
    foreach e $args {
        lassign $e event key db
        if {$db eq ""} { set db 0 }
        lappend out [list __keyspace@${db}__:$key $event]
        lappend out [list __keyevent@${db}__:$event $key]
    }
    return $out
}

# fresh ?flags?: empty all dbs, select db 0, set the event classes (default
# KEA) and discard anything pending.
proc fresh {{flags KEA}} {
    r $::c SELECT 0
    r $::c CONFIG SET notify-keyspace-events $flags
    r $::c FLUSHALL
    drain
    return
}

# check EXPECTED ACTUAL WHAT: a soft assertion inside ntest: a mismatch is
# recorded and the test goes on, so one run reports every difference; the
# test fails at its end listing them all (in full, not truncated).
set bad {}
proc check {expected actual {what ""}} {
    if {$expected ne $actual} {
        set vis {\r \\r \n \\n \0 \\0}
        lappend ::bad "$what:\n  expected: [string map $vis $expected]\n  got:      [string map $vis $actual]"
    }
}

# ntest NAME ?-tags TAGS? BODY: test whose checks are soft (see check).
proc ntest {name args} {
    set body "set ::bad {}\n[lindex $args end]\ncheck_done"
    uplevel 1 [list test $name {*}[lrange $args 0 end-1] $body]
}

proc check_done {} {
    if {[llength $::bad]} {
        set m "[llength $::bad] mismatch(es):\n[join $::bad \n]"
        set ::bad {}
        return -code error -errorcode {CAIRN ASSERT} $m
    }
}

# without_active_expire BODY: runs BODY (caller's scope) with the active
# expiry cycle off, so keys expire only when accessed; restores it after.
proc without_active_expire {body} {
    r $::c DEBUG SET-ACTIVE-EXPIRE 0
    catch {uplevel 1 $body} res opts
    r $::c DEBUG SET-ACTIVE-EXPIRE 1
    return -options $opts $res
}

# ---------------------------------------------------------------------------
# String commands
# ---------------------------------------------------------------------------

ntest "SET: set on new and existing keys, nothing when NX/XX fail" {
    fresh
    check [want {set k}] [ev SET k v] "SET new"
    check [want {set k}] [ev SET k v2] "SET existing"
    check {} [ev SET k v3 NX] "SET NX on existing"
    check [want {set k}] [ev SET k v4 XX] "SET XX"
    check {} [ev SET missing v XX] "SET XX on missing"
    check [want {set nx}] [ev SET nx v NX] "SET NX on missing"
    check [want {set k}] [ev SET k v5 GET] "SET GET"
    check {} [ev SET k v6 NX GET] "SET NX GET on existing"
    check [want {set k}] [ev SET k v7 KEEPTTL] "SET KEEPTTL"
    check [want {set k}] [ev SET k v5] "SET same value"
    check {} [ev_err "ERR syntax error" SET k v NX XX] "SET syntax error"
}

ntest "SET with EX/PX/EXAT/PXAT: set then expire" {
    fresh
    check [want {set k} {expire k}] [ev SET k v EX 100] "EX"
    check [want {set k} {expire k}] [ev SET k v PX 100000] "PX"
    set now [clock seconds]
    check [want {set k} {expire k}] [ev SET k v EXAT [expr {$now + 100}]] "EXAT"
    check [want {set k} {expire k}] [ev SET k v PXAT [expr {$now * 1000 + 100000}]] "PXAT"
    check [want {set k}] [ev SET k v KEEPTTL] "KEEPTTL keeps the TTL silently"
    assert_range [r $c TTL k] 1 100
    check [want {set k2} {expire k2}] [ev SET k2 v EX 100 NX] "EX NX on a new key"
    check [want {set k2} {expire k2}] [ev SET k2 v EX 100 GET] "EX GET"
    check {} [ev_err "ERR invalid expire time in 'set' command" SET k v EX 0] "EX 0"
}

ntest "SET with EXAT/PXAT in the past" {
    fresh
    without_active_expire {
        check [want {set k} {expire k}] [ev SET k v EXAT 1] "EXAT 1"
        check [want {expired k}] [ev EXISTS k] "EXISTS after: expired lazily"
        check [want {set k} {expire k}] [ev SET k v PXAT 1] "PXAT 1"
    }
}

ntest "SETNX, SETEX, PSETEX" {
    fresh
    check [want {set k}] [ev SETNX k v] "SETNX new"
    check {} [ev SETNX k v2] "SETNX existing"
    check [want {set k} {expire k}] [ev SETEX k 100 v] "SETEX"
    check [want {set k2} {expire k2}] [ev SETEX k2 100 v] "SETEX new"
    check [want {set k} {expire k}] [ev PSETEX k 100000 v] "PSETEX"
    check {} [ev_err "ERR invalid expire time in 'setex' command" SETEX k 0 v] "SETEX 0"
    check {} [ev_err "ERR invalid expire time in 'psetex' command" PSETEX k -5 v] "PSETEX -5"
}

ntest "GETSET and GETDEL" {
    fresh
    check [want {set k}] [ev GETSET k v] "GETSET new"
    check [want {set k}] [ev GETSET k v2] "GETSET existing"
    r $c EXPIRE k 100
    drain
    check [want {set k}] [ev GETSET k v3] "GETSET clears the TTL silently"
    assert_equal -1 [r $c TTL k]
    check [want {del k}] [ev GETDEL k] "GETDEL"
    check {} [ev GETDEL k] "GETDEL missing"
}

ntest "GETEX EX/PX/EXAT/PXAT/PERSIST" {
    fresh
    r $c SET k v
    drain
    check {} [ev GETEX k] "GETEX without options"
    check [want {expire k}] [ev GETEX k EX 100] "EX"
    check [want {expire k}] [ev GETEX k PX 100000] "PX"
    check [want {expire k}] [ev GETEX k EXAT [expr {[clock seconds] + 100}]] "EXAT"
    check [want {expire k}] [ev GETEX k PXAT [expr {[clock milliseconds] + 100000}]] "PXAT"
    check [want {persist k}] [ev GETEX k PERSIST] "PERSIST"
    check {} [ev GETEX k PERSIST] "PERSIST without a TTL"
    check {} [ev GETEX missing EX 100] "GETEX missing"
    check [want {del k}] [ev GETEX k EXAT 1] "EXAT in the past deletes"
    assert_equal 0 [r $c EXISTS k]
    r $c SET k v
    drain
    check [want {del k}] [ev GETEX k PXAT 1] "PXAT in the past deletes"
    r $c SET k v
    drain
    check {} [ev_err "ERR invalid expire time in 'getex' command" GETEX k EX 0] "EX 0"
}

ntest "MSET and MSETNX: one set per key, in argument order" {
    fresh
    r $c SET b old
    drain
    check [want {set a} {set b} {set c}] [ev MSET a 1 b 2 c 3] "MSET"
    check [want {set c} {set a} {set c}] [ev MSET c 1 a 2 c 3] "MSET repeated key"
    check {} [ev MSETNX x 1 a 2] "MSETNX with an existing key"
    check [want {set x} {set y}] [ev MSETNX x 1 y 2] "MSETNX"
}

ntest "INCR, DECR, INCRBY, DECRBY: incrby" {
    fresh
    check [want {incrby n}] [ev INCR n] "INCR new"
    check [want {incrby n}] [ev INCR n] "INCR"
    check [want {incrby n}] [ev DECR n] "DECR"
    check [want {incrby n}] [ev INCRBY n 10] "INCRBY"
    check [want {incrby n}] [ev DECRBY n 3] "DECRBY"
    check [want {incrby n}] [ev INCRBY n 0] "INCRBY 0"
    check [want {incrby m}] [ev DECRBY m 5] "DECRBY new"
    r $c SET str abc
    drain
    check {} [ev_err "ERR value is not an integer or out of range" INCR str] "INCR non-integer"
    r $c SET big 9223372036854775807
    drain
    check {} [ev_err "ERR increment or decrement would overflow" INCR big] "INCR overflow"
}

ntest "INCRBYFLOAT: incrbyfloat" {
    fresh
    check [want {incrbyfloat f}] [ev INCRBYFLOAT f 1.5] "new"
    check [want {incrbyfloat f}] [ev INCRBYFLOAT f -0.5] "existing"
    r $c SET str abc
    drain
    check {} [ev_err "ERR value is not a valid float" INCRBYFLOAT str 1] "non-float"
}

ntest "APPEND and SETRANGE" {
    fresh
    check [want {append k}] [ev APPEND k abc] "APPEND new"
    check [want {append k}] [ev APPEND k def] "APPEND existing"
    check [want {append k}] [ev APPEND k ""] "APPEND empty"
    check [want {setrange k}] [ev SETRANGE k 1 X] "SETRANGE"
    check [want {setrange r}] [ev SETRANGE r 3 abc] "SETRANGE new"
    check {} [ev SETRANGE k 2 ""] "SETRANGE empty on existing"
    check {} [ev SETRANGE empty 5 ""] "SETRANGE empty on missing"
    assert_equal 0 [r $c EXISTS empty]
}

ntest "read-only string commands publish nothing" {
    fresh
    r $c SET k hello
    r $c SET k2 help
    drain
    foreach cmd {
        {GET k} {MGET k k2 missing} {STRLEN k} {GETRANGE k 0 2} {SUBSTR k 0 2}
        {LCS k k2} {GETEX k} {EXISTS k k2} {TYPE k} {TTL k} {PTTL k}
        {EXPIRETIME k} {PEXPIRETIME k} {TOUCH k} {KEYS *} {SCAN 0} {RANDOMKEY}
        {DBSIZE} {OBJECT ENCODING k}
    } {
        check {} [ev {*}$cmd] $cmd
    }
}

# ---------------------------------------------------------------------------
# Generic key commands
# ---------------------------------------------------------------------------

ntest "DEL and UNLINK: one del per removed key" {
    fresh
    r $c MSET a 1 b 2 c 3 d 4
    drain
    check [want {del a}] [ev DEL a] "DEL"
    check [want {del c} {del b}] [ev DEL missing c b a] "DEL several"
    check {} [ev DEL a b] "DEL missing"
    check [want {del d}] [ev UNLINK x d] "UNLINK"
    check {} [ev UNLINK d] "UNLINK missing"
}

ntest "EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT: expire" {
    fresh
    r $c SET k v
    drain
    check [want {expire k}] [ev EXPIRE k 100] "EXPIRE"
    check [want {expire k}] [ev PEXPIRE k 100000] "PEXPIRE"
    check [want {expire k}] [ev EXPIREAT k [expr {[clock seconds] + 100}]] "EXPIREAT"
    check [want {expire k}] [ev PEXPIREAT k [expr {[clock milliseconds] + 100000}]] "PEXPIREAT"
    check {} [ev EXPIRE missing 100] "EXPIRE missing"
    check {} [ev EXPIRE k 200 NX] "EXPIRE NX with a TTL"
    check [want {expire k}] [ev EXPIRE k 200 XX] "EXPIRE XX"
    check {} [ev EXPIRE k 50 GT] "EXPIRE GT, smaller"
    check [want {expire k}] [ev EXPIRE k 300 GT] "EXPIRE GT, larger"
    check [want {expire k}] [ev EXPIRE k 50 LT] "EXPIRE LT, smaller"
    check {} [ev_err "ERR value is not an integer or out of range" EXPIRE k abc] "EXPIRE bad"
}

ntest "EXPIRE and friends with a time in the past: del" {
    fresh
    foreach cmd {{EXPIRE k 0} {EXPIRE k -10} {PEXPIRE k 0} {EXPIREAT k 1} {PEXPIREAT k 1}} {
        r $c SET k v
        drain
        check [want {del k}] [ev {*}$cmd] $cmd
        assert_equal 0 [r $c EXISTS k] $cmd
    }
    r $c SET k v EX 100
    drain
    check [want {del k}] [ev EXPIRE k -1] "on a key with a TTL"
    r $c SET k v
    drain
    check {} [ev EXPIRE k -1 XX] "XX without a TTL"
    check [want {del k}] [ev EXPIRE k -1 NX] "NX without a TTL"
}

ntest "PERSIST: persist only when a TTL was removed" {
    fresh
    r $c SET k v EX 100
    drain
    check [want {persist k}] [ev PERSIST k] "PERSIST"
    check {} [ev PERSIST k] "PERSIST again"
    check {} [ev PERSIST missing] "PERSIST missing"
}

ntest "RENAME: rename_from then rename_to" {
    fresh
    r $c SET a 1
    drain
    check [want {rename_from a} {rename_to b}] [ev RENAME a b] "RENAME to a new name"
    r $c SET c 3
    drain
    check [want {rename_from b} {rename_to c}] [ev RENAME b c] "RENAME over an existing key"
    r $c EXPIRE c 100
    drain
    check [want {rename_from c} {rename_to d}] [ev RENAME c d] "RENAME with a TTL"
    assert_range [r $c TTL d] 1 100
    check {} [ev RENAME d d] "RENAME to itself"
    check {} [ev_err "ERR no such key" RENAME missing x] "RENAME missing"
}

ntest "RENAMENX: rename_from then rename_to, nothing when the target exists" {
    fresh
    r $c MSET a 1 b 2
    drain
    check {} [ev RENAMENX a b] "target exists"
    check [want {rename_from a} {rename_to c}] [ev RENAMENX a c] "RENAMENX"
    check {} [ev RENAMENX c c] "RENAMENX to itself"
    check {} [ev_err "ERR no such key" RENAMENX missing x] "missing"
}

ntest "COPY: copy_to on the destination" {
    fresh
    r $c SET a 1
    drain
    check [want {copy_to b}] [ev COPY a b] "COPY"
    check {} [ev COPY a b] "COPY onto an existing key"
    check [want {copy_to b}] [ev COPY a b REPLACE] "COPY REPLACE"
    check [want {copy_to b 3}] [ev COPY a b DB 3] "COPY DB 3"
    check {} [ev COPY missing z] "COPY missing"
    r $c EXPIRE a 100
    drain
    check [want {copy_to e}] [ev COPY a e] "COPY with a TTL"
    assert_range [r $c TTL e] 1 100
    check {} [ev_err "ERR source and destination objects are the same" COPY a a] "COPY to itself"
}

ntest "MOVE: move_from in the source db, move_to in the target db" {
    fresh
    r $c SET k v
    drain
    check [want {move_from k 0} {move_to k 4}] [ev MOVE k 4] "MOVE"
    check {} [ev MOVE k 4] "MOVE missing"
    r $c SET k v2
    drain
    check {} [ev MOVE k 4] "MOVE onto an existing key"
    r $c SELECT 4
    check [want {move_from k 4} {move_to k 7}] [ev MOVE k 7] "MOVE from db 4"
    r $c SELECT 0
}

ntest "lazy expiry on access: expired" {
    fresh
    without_active_expire {
        r $c SET k v PX 5
        r $c SET k2 v PX 5
        r $c SET k3 v PX 5
        r $c SET k4 v PX 5
        drain
        after 30
        check [want {expired k}] [ev GET k] "GET"
        check {} [ev GET k] "GET again"
        check [want {expired k2}] [ev EXISTS k2] "EXISTS"
        check [want {expired k3} {set k3}] [ev SET k3 new] "SET over an expired key"
        check [want {expired k4} {incrby k4}] [ev INCR k4] "INCR on an expired key"
        r $c SET k5 v PX 5
        r $c SET k6 v PX 5
        drain
        after 30
        check [want {expired k5}] [ev TTL k5] "TTL"
        check [want {expired k6}] [ev DEL k6] "DEL of an expired key"
    }
}

ntest "lazy expiry through key-walking and generic commands" {
    fresh
    without_active_expire {
        foreach {cmd key events} {
            {KEYS *}            e1 {}
            {DBSIZE}            e1 {}
            {SCAN 0}            e1 {{expired e1}}
            {RANDOMKEY}         e2 {{expired e2}}
            {TOUCH e3}          e3 {{expired e3}}
            {TYPE e4}           e4 {{expired e4}}
            {COPY e5 x}         e5 {{expired e5}}
            {MOVE e6 1}         e6 {{expired e6}}
            {RENAME e7 x}       e7 {{expired e7}}
            {PERSIST e8}        e8 {{expired e8}}
            {EXPIRE e9 100}     e9 {{expired e9}}
            {GETDEL e10}        e10 {{expired e10}}
            {APPEND e11 x}      e11 {{expired e11} {append e11}}
            {MSET e12 x}        e12 {{expired e12} {set e12}}
            {SETNX e13 x}       e13 {{expired e13} {set e13}}
            {MSETNX e14 x}      e14 {{expired e14} {set e14}}
        } {
            r $c SET $key v PX 5
            drain
            after 20
            catch {r $c {*}$cmd}
            check [want {*}$events] [drain] $cmd
            r $c FLUSHDB
            drain
        }
    }
}

ntest "active expiry: expired" {
    fresh
    r $c SET k v PX 200
    check [want {set k} {expire k}] [drain]
    # Wait for the expiry cycle; nothing else is published meanwhile.
    assert_equal [list pmessage $pattern __keyspace@0__:k expired] [read_reply $s]
    assert_equal [list pmessage $pattern __keyevent@0__:expired k] [read_reply $s]
    check {} [drain]
    assert_equal 0 [r $c DBSIZE]
}

ntest "FLUSHDB, FLUSHALL, SWAPDB publish no key events" {
    fresh
    r $c MSET a 1 b 2
    r $c SET e v EX 100
    r $c SELECT 2
    r $c SET z 1
    r $c SELECT 0
    drain
    check {} [ev SWAPDB 0 2] "SWAPDB"
    assert_equal 1 [r $c DBSIZE]
    check {} [ev FLUSHDB] "FLUSHDB"
    check {} [ev FLUSHDB ASYNC] "FLUSHDB ASYNC"
    check {} [ev FLUSHALL] "FLUSHALL"
    r $c SET a 1
    drain
    check {} [ev FLUSHALL SYNC] "FLUSHALL SYNC"
    assert_equal 0 [r $c DBSIZE]
}

# ---------------------------------------------------------------------------
# Event classes
# ---------------------------------------------------------------------------

ntest "keymiss events ('m') from reads of missing keys" {
    fresh Km
    foreach {cmd keys} {
        {GET miss} {miss}
        {MGET m1 m2} {m1 m2}
        {STRLEN miss} {miss}
        {GETRANGE miss 0 1} {miss}
        {SUBSTR miss 0 1} {miss}
        {GETDEL miss} {miss}
        {GETEX miss} {miss}
        {GETEX miss EX 10} {miss}
        {LCS m1 m2} {m1 m2}
        {EXISTS m1 m2} {m1 m2}
        {TYPE miss} {miss}
        {TTL miss} {miss}
        {PTTL miss} {miss}
        {EXPIRETIME miss} {miss}
        {PEXPIRETIME miss} {miss}
        {TOUCH m1 m2} {m1 m2}
        {COPY miss x} {miss}
        {MOVE miss 3} {}
        {RENAMENX miss x} {}
        {SET miss v} {}
        {DEL miss} {}
        {INCR cnt} {}
        {APPEND app x} {}
        {SETRANGE sr 0 x} {}
        {EXPIRE missing 10} {}
        {PERSIST miss} {}
        {SET miss2 v GET} {miss2}
        {GETSET miss3 v} {miss3}
        {OBJECT ENCODING miss} {}
    } {
        set exp {}
        foreach k $keys { lappend exp [list __keyspace@0__:$k keymiss] }
        catch {r $c {*}$cmd}
        check $exp [drain] $cmd
    }
    r $c SET k v
    drain
    check {} [ev GET k] "GET of an existing key"
    check {} [ev SET k v] "K and m only: no set event"
}

ntest "keymiss on the keyevent channel and with the A class" {
    fresh Em
    check {{__keyevent@0__:keymiss nothere}} [ev GET nothere] "Em"
    fresh KEA
    check {} [ev GET nothere] "A does not include m"
    fresh KEAm
    check [want {keymiss nothere}] [ev GET nothere] "KEAm"
    r $c SELECT 5
    check [want {keymiss nothere 5}] [ev GET nothere] "db 5"
    r $c SELECT 0
}

ntest "new-key events ('n') come before the command's event" {
    fresh KEAn
    check [want {new k} {set k}] [ev SET k v] "SET new"
    check [want {set k}] [ev SET k v2] "SET existing"
    check [want {new e} {set e} {expire e}] [ev SET e v EX 100] "SET EX new"
    check [want {new nx} {set nx}] [ev SETNX nx v] "SETNX"
    check [want {new se} {set se} {expire se}] [ev SETEX se 100 v] "SETEX"
    check [want {new gs} {set gs}] [ev GETSET gs v] "GETSET"
    check [want {new a} {set a} {set k} {new b} {set b}] [ev MSET a 1 k 2 b 3] "MSET"
    check [want {new x} {set x} {new y} {set y}] [ev MSETNX x 1 y 2] "MSETNX"
    check [want {new n} {incrby n}] [ev INCR n] "INCR"
    check [want {incrby n}] [ev INCR n] "INCR existing"
    check [want {new f} {incrbyfloat f}] [ev INCRBYFLOAT f 1] "INCRBYFLOAT"
    check [want {new ap} {append ap}] [ev APPEND ap x] "APPEND"
    check [want {new sr} {setrange sr}] [ev SETRANGE sr 2 x] "SETRANGE"
    check [want {new ren} {rename_from a} {rename_to ren}] [ev RENAME a ren] "RENAME"
    # The target is deleted and added again: a new key all the same.
    check [want {new k} {rename_from ren} {rename_to k}] [ev RENAME ren k] "RENAME over existing"
    check [want {new rnx} {rename_from b} {rename_to rnx}] [ev RENAMENX b rnx] "RENAMENX"
    check [want {new cp} {copy_to cp}] [ev COPY k cp] "COPY"
    check [want {new cp} {copy_to cp}] [ev COPY k cp REPLACE] "COPY REPLACE over existing"
    check [want {new cp 2} {copy_to cp 2}] [ev COPY k cp DB 2] "COPY DB"
    check [want {new k 3} {move_from k 0} {move_to k 3}] [ev MOVE k 3] "MOVE"
    check {} [ev DEL nonexistent] "DEL"
}

ntest "expired, keymiss and new events together" {
    fresh KEAmn
    without_active_expire {
        check [want {keymiss g} {new g} {set g}] [ev SET g v GET] "SET GET on a missing key"
        check [want {keymiss gs} {new gs} {set gs}] [ev GETSET gs v] "GETSET on a missing key"
        r $c SET k1 v PX 5
        r $c SET k2 v PX 5
        r $c SET k3 v PX 5
        drain
        after 30
        check [want {expired k1} {keymiss k1}] [ev GET k1] "GET of an expired key"
        check [want {expired k2} {new k2} {set k2}] [ev SET k2 v] "SET over an expired key"
        check [want {expired k3} {new k3} {incrby k3}] [ev INCR k3] "INCR on an expired key"
        check {} [ev SETRANGE none 3 ""] "SETRANGE with an empty value"
    }
}

ntest "new-key events alone ('Kn', 'En')" {
    fresh Kn
    check {{__keyspace@0__:k new}} [ev SET k v] "Kn SET new"
    check {} [ev SET k v] "Kn SET existing"
    check {} [ev DEL k] "Kn DEL"
    fresh En
    check {{__keyevent@0__:new k}} [ev INCR k] "En INCR new"
    fresh KEA
    check [want {set k}] [ev SET k v] "A does not include n"
}

ntest "class filtering: only generic ('g') events" {
    fresh Kg
    check {} [ev SET k v] "SET"
    check {{__keyspace@0__:k expire}} [ev SET k v EX 100] "SET EX"
    check {{__keyspace@0__:k persist}} [ev PERSIST k] "PERSIST"
    check {} [ev INCR n] "INCR"
    check {} [ev APPEND k x] "APPEND"
    check {{__keyspace@0__:k del}} [ev GETDEL k] "GETDEL"
    check {{__keyspace@0__:n rename_from} {__keyspace@0__:r rename_to}} [ev RENAME n r] "RENAME"
    check {{__keyspace@0__:c copy_to}} [ev COPY r c] "COPY"
    check {{__keyspace@0__:c del}} [ev DEL c] "DEL"
    fresh Eg
    check {{__keyevent@0__:expire k}} [ev SETEX k 100 v] "Eg SETEX"
    check {} [ev MSET a 1] "Eg MSET"
    check {{__keyevent@0__:move_from a} {__keyevent@1__:move_to a}} [ev MOVE a 1] "Eg MOVE"
}

ntest "class filtering: only string ('\$') events" {
    fresh K\$
    check {{__keyspace@0__:k set}} [ev SET k v EX 100] "SET EX"
    check {} [ev EXPIRE k 50] "EXPIRE"
    check {} [ev PERSIST k] "PERSIST"
    check {{__keyspace@0__:k set} {__keyspace@0__:k2 set}} [ev MSET k 1 k2 2] "MSET"
    check {{__keyspace@0__:k incrby}} [ev INCR k] "INCR"
    check {{__keyspace@0__:k incrbyfloat}} [ev INCRBYFLOAT k 1.5] "INCRBYFLOAT"
    check {{__keyspace@0__:k append}} [ev APPEND k x] "APPEND"
    check {{__keyspace@0__:k setrange}} [ev SETRANGE k 0 y] "SETRANGE"
    check {} [ev GETDEL k] "GETDEL"
    check {} [ev RENAME k2 k3] "RENAME"
    check {} [ev DEL k3] "DEL"
    fresh E\$
    check {{__keyevent@0__:set k}} [ev PSETEX k 100000 v] "E\$ PSETEX"
    check {} [ev EXPIRE k 5] "E\$ EXPIRE"
}

ntest "class filtering: only expired ('x') events, and no K/E means nothing" {
    fresh Ex
    without_active_expire {
        check {} [ev SET k v PX 5] "SET PX"
        after 30
        check {{__keyevent@0__:expired k}} [ev GET k] "lazy expiry"
        check {} [ev SET k v] "SET"
        check {} [ev DEL k] "DEL"
        fresh A
        check {} [ev SET k v EX 100] "A without K or E"
        check {} [ev DEL k] "A without K or E"
        fresh K
        check {} [ev SET k v] "K without classes"
    }
}

# ---------------------------------------------------------------------------
# Delivery
# ---------------------------------------------------------------------------

ntest "events carry the database number and binary key names" {
    fresh
    r $c SELECT 9
    check [want {set k 9}] [ev SET k v] "db 9"
    check [want {expire k 9}] [ev EXPIRE k 100] "db 9"
    check [want {del k 9}] [ev DEL k] "db 9"
    set bk "a b\r\n\x00\xff:*"
    check [want [list set $bk 9]] [ev SET $bk v] "binary key"
    r $c SELECT 0
    check [want {set k}] [ev SET k v] "db 0"
}

ntest "MULTI/EXEC publishes each command's events in order at EXEC" {
    fresh
    r $c MULTI
    r $c SET a 1
    r $c INCR a
    r $c EXPIRE a 100
    r $c RENAME a b
    r $c DEL b
    check {} [drain] "nothing before EXEC"
    assert_equal {OK 2 1 OK 1} [r $c EXEC]
    check [want {set a} {incrby a} {expire a} {rename_from a} {rename_to b} {del b}] [drain] "EXEC"
    # A failing command inside the transaction publishes nothing.
    r $c SET s abc
    drain
    r $c MULTI
    r $c INCR s
    r $c APPEND s d
    assert_equal {{ERR value is not an integer or out of range} 4} [r $c EXEC]
    check [want {append s}] [drain] "EXEC with an error"
}

ntest "a RESP3 client gets its own notifications as push messages" {
    fresh
    set p [client $srv -resp 3]
    send_cmd $p PSUBSCRIBE __keyspace@0__:*
    assert_equal {psubscribe __keyspace@0__:* 1} [read_push $p]
    # Parsed: the reply is returned and the pushes are queued.
    assert_equal OK [r $p SET own v]
    assert_equal 1 [r $p INCR n]
    assert_equal 1 [r $p EXPIRE n 100]
    assert_equal PONG [r $p PING]
    assert_equal {pmessage __keyspace@0__:* __keyspace@0__:own set} [read_push $p]
    assert_equal {pmessage __keyspace@0__:* __keyspace@0__:n incrby} [read_push $p]
    assert_equal {pmessage __keyspace@0__:* __keyspace@0__:n expire} [read_push $p]
    # Other clients' commands arrive the same way, between replies.
    r $c DEL n
    assert_equal PONG [r $p PING]
    assert_equal {pmessage __keyspace@0__:* __keyspace@0__:n del} [read_push $p]
    close_client $p
}

ntest "RESP3: the order of a command's own pushes and its reply" {
    fresh KAm
    set p [client $srv -resp 3]
    send_cmd $p PSUBSCRIBE __keyspace@0__:*
    assert_equal {psubscribe __keyspace@0__:* 1} [read_push $p]
    r $c SET gs v
    r $c SET gd v
    r $c SET gx v
    r $c SET del1 v
    r $c SET del2 v
    r $c SET ren v
    r $c SET cp v
    r $c SET mv v
    r $c SET pe v EX 100
    r $c SET ep v
    r $c SET sg v
    assert_equal PONG [r $p PING]
    foreach {cmd order} {
        {SET k v}               {set reply}
        {SET k v EX 100}        {set expire reply}
        {SET sg v2 GET}         {reply set}
        {SET sgnew v GET}       {keymiss reply set}
        {SETNX nx v}            {set reply}
        {SETEX se 100 v}        {set expire reply}
        {PSETEX pse 100000 v}   {set expire reply}
        {GETSET gs v2}          {reply set}
        {GETDEL gd}             {reply del}
        {GETEX gx EX 100}       {reply expire}
        {GETEX gx PERSIST}      {reply persist}
        {GETEX gx EXAT 1}       {reply del}
        {MSET m1 1 m2 2}        {set set reply}
        {MSETNX m3 1 m4 2}      {set set reply}
        {INCR i}                {incrby reply}
        {DECRBY i 5}            {incrby reply}
        {INCRBYFLOAT f 1.5}     {incrbyfloat reply}
        {APPEND ap x}           {append reply}
        {SETRANGE ap 0 y}       {setrange reply}
        {DEL del1 missing del2} {del del reply}
        {UNLINK k}              {del reply}
        {EXPIRE ep 100}         {reply expire}
        {PEXPIREAT ep 9999999999999} {reply expire}
        {PERSIST ep}            {persist reply}
        {EXPIRE ep 0}           {del reply}
        {PERSIST pe}            {persist reply}
        {RENAME ren ren2}       {rename_from rename_to reply}
        {COPY cp cp2}           {copy_to reply}
        {MOVE mv 1}             {move_from reply}
        {GET nokey}             {keymiss reply}
        {EXISTS nokey}          {keymiss reply}
    } {
        check $order [events_and_reply $p {*}$cmd] $cmd
    }
    close_client $p
}

ntest "RESP3: pushes interleave with the elements of EXEC and MGET arrays" {
    fresh KAm
    set p [client $srv -resp 3]
    send_cmd $p PSUBSCRIBE __keyspace@0__:*
    assert_equal {psubscribe __keyspace@0__:* 1} [read_push $p]
    assert_equal OK [r $p MULTI]
    assert_equal QUEUED [r $p SET a 1]
    assert_equal QUEUED [r $p GET zz]
    set push_a ">4\r\n\$8\r\npmessage\r\n\$16\r\n__keyspace@0__:*\r\n\$16\r\n__keyspace@0__:a\r\n\$3\r\nset\r\n"
    set push_zz ">4\r\n\$8\r\npmessage\r\n\$16\r\n__keyspace@0__:*\r\n\$17\r\n__keyspace@0__:zz\r\n\$7\r\nkeymiss\r\n"
    send_cmd $p EXEC
    send_cmd $p PING
    set got ""
    while {[string range $got end-6 end] ne "+PONG\r\n"} { append got [read_raw_reply $p] }
    check "*2\r\n$push_a+OK\r\n${push_zz}_\r\n+PONG\r\n" $got "EXEC stream"
    # MGET: each keymiss push precedes that key's null, inside the array.
    r $c SET here v
    assert_equal PONG [r $p PING]
    send_cmd $p MGET m1 here m2
    send_cmd $p PING
    set got ""
    while {[string range $got end-6 end] ne "+PONG\r\n"} { append got [read_raw_reply $p] }
    set push_m1 ">4\r\n\$8\r\npmessage\r\n\$16\r\n__keyspace@0__:*\r\n\$17\r\n__keyspace@0__:m1\r\n\$7\r\nkeymiss\r\n"
    set push_m2 [string map {m1 m2} $push_m1]
    check "*3\r\n${push_m1}_\r\n\$1\r\nv\r\n${push_m2}_\r\n+PONG\r\n" $got "MGET stream"
    close_client $p
}

ntest "RESP3 subscriber: events from other clients, keymiss before the null reply" {
    fresh KA
    set p [client $srv -resp 3]
    send_cmd $p PSUBSCRIBE __keyspace@0__:*
    assert_equal {psubscribe __keyspace@0__:* 1} [read_push $p]
    r $c SET other v EX 100
    assert_equal {pmessage __keyspace@0__:* __keyspace@0__:other set} [read_push $p]
    assert_equal {pmessage __keyspace@0__:* __keyspace@0__:other expire} [read_push $p]
    r $c CONFIG SET notify-keyspace-events KAm
    set ch __keyspace@0__:nokey
    assert_equal ">4\r\n\$8\r\npmessage\r\n\$16\r\n__keyspace@0__:*\r\n\$[string length $ch]\r\n$ch\r\n\$7\r\nkeymiss\r\n" \
        [rraw $p GET nokey]
    assert_equal "_\r\n" [read_raw_reply $p]
    assert_equal PONG [r $p PING]
    send_cmd $p PUNSUBSCRIBE
    assert_equal {punsubscribe __keyspace@0__:* 0} [read_push $p]
    r $c SET other v2
    assert_equal {} [r $p GET nokey2]
    assert_equal PONG [r $p PING]
    close_client $p
    r $c CONFIG SET notify-keyspace-events KEA
}

r $c CONFIG SET notify-keyspace-events ""
finish
