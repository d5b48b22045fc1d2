# multi.tcl -- transactions: MULTI/EXEC/DISCARD, queue-time errors
# (EXECABORT), run-time errors (no rollback), WATCH/UNWATCH and everything
# that breaks a WATCH (writes, expiry, FLUSHDB, SWAPDB, RENAME), and, on
# cairn, the MULTI/EXEC unit in the propagation stream.

source [file join [file dirname [info script]] .. helpers harness.tcl]

set srv [start_server]
set c [client $srv]
set other [client $srv]

test "MULTI/EXEC runs the queued commands and returns their replies" {
    r $c DEL a
    assert_equal OK [r $c MULTI]
    assert_equal QUEUED [r $c SET a 1]
    assert_equal QUEUED [r $c INCR a]
    assert_equal QUEUED [r $c GET a]
    assert_equal {OK 2 2} [r $c EXEC]
}

test "EXEC replies keep run-time errors in place, nothing is rolled back" {
    r $c SET s notanumber
    r $c MULTI
    r $c SET t 1
    r $c INCR s
    r $c INCR t
    assert_equal "*3\r\n+OK\r\n-ERR value is not an integer or out of range\r\n:2\r\n" [rraw $c EXEC]
    assert_equal 2 [r $c GET t]
}

test "queue-time errors abort the transaction with EXECABORT" {
    r $c DEL q
    r $c MULTI
    r $c SET q 1
    assert_error "ERR unknown command*" {r $c NOSUCHCOMMAND}
    assert_error "ERR wrong number of arguments for 'get' command" {r $c GET}
    assert_error "EXECABORT Transaction discarded because of previous errors." {r $c EXEC}
    assert_equal 0 [r $c EXISTS q]
}

test "DISCARD, nesting and misuse errors" {
    assert_error "ERR DISCARD without MULTI" {r $c DISCARD}
    assert_error "ERR EXEC without MULTI" {r $c EXEC}
    r $c MULTI
    assert_error "ERR MULTI calls can not be nested" {r $c MULTI}
    assert_error "ERR WATCH inside MULTI is not allowed" {r $c WATCH x}
    assert_error "ERR Command not allowed inside a transaction" {r $c SHUTDOWN}
    assert_equal OK [r $c DISCARD]
    assert_equal PONG [r $c PING]
}

test "an empty transaction returns an empty array" {
    r $c MULTI
    assert_equal "*0\r\n" [rraw $c EXEC]
}

test "WATCH: an untouched key lets EXEC run" {
    r $c SET w 1
    r $c WATCH w
    r $c MULTI
    r $c INCR w
    assert_equal {2} [r $c EXEC]
}

test "WATCH: a write by another client aborts EXEC with a null array" {
    r $c SET w 1
    r $c WATCH w
    r $other SET w 2
    r $c MULTI
    r $c INCR w
    assert_equal "*-1\r\n" [rraw $c EXEC]
    assert_equal 2 [r $c GET w]
}

test "WATCH: our own write before MULTI also aborts" {
    r $c WATCH w
    r $c SET w 5
    r $c MULTI
    r $c GET w
    assert_equal "*-1\r\n" [rraw $c EXEC]
}

test "WATCH is cleared by EXEC, DISCARD and UNWATCH" {
    r $c WATCH w
    r $c UNWATCH
    r $other SET w 9
    r $c MULTI
    r $c GET w
    assert_equal {9} [r $c EXEC]
    r $c WATCH w
    r $c MULTI
    r $c DISCARD
    r $other SET w 10
    r $c MULTI
    r $c GET w
    assert_equal {10} [r $c EXEC]
}

test "WATCH is broken by expiry" {
    # WATCH must see the key alive: a TTL with room for a stalled machine.
    r $c SET e v PX 500
    r $c WATCH e
    after 550
    r $c MULTI
    r $c GET e
    assert_equal "*-1\r\n" [rraw $c EXEC]
}

test "WATCH of a missing key is broken when it is created" {
    r $c DEL nokey
    r $c WATCH nokey
    r $other SET nokey 1
    r $c MULTI
    r $c PING
    assert_equal "*-1\r\n" [rraw $c EXEC]
}

test "WATCH is broken by FLUSHDB and FLUSHALL, not when the key did not exist" {
    r $c SET f 1
    r $c WATCH f
    r $other FLUSHDB
    r $c MULTI
    r $c PING
    assert_equal "*-1\r\n" [rraw $c EXEC]
    r $c WATCH f
    r $other FLUSHALL
    r $c MULTI
    r $c PING
    assert_equal {PONG} [r $c EXEC]
}

test "WATCH is broken by SWAPDB and RENAME" {
    r $c SELECT 9
    r $c FLUSHDB
    r $c SET sw 1
    r $c WATCH sw
    r $other SWAPDB 9 10
    r $c MULTI
    r $c PING
    assert_equal "*-1\r\n" [rraw $c EXEC]
    r $c SELECT 0
    r $c SET rn 1
    r $c WATCH rn
    r $other RENAME rn rn2
    r $c MULTI
    r $c PING
    assert_equal "*-1\r\n" [rraw $c EXEC]
}

# A key that had already expired (but was not deleted yet) when WATCHed
# counts as missing: deleting it is no change, a live value appearing is.
# Active expiry is off so the stale keys stay until something touches them.
proc stale_key {c key} {
    r $c SET $key v PX 1
    after 3
}

proc exec_result {c} {
    r $c MULTI
    r $c PING
    return [rraw $c EXEC]
}

test "WATCH of an already expired key: deleting it lazily is no change" {
    r $c SELECT 0
    r $c DEBUG SET-ACTIVE-EXPIRE 0
    stale_key $c st1
    r $c WATCH st1
    assert_equal 0 [r $other EXISTS st1] ;# deletes it
    assert_equal "*1\r\n+PONG\r\n" [exec_result $c]
    # Once deleted it is an ordinary missing key: creating it breaks WATCH.
    stale_key $c st1
    r $c WATCH st1
    r $other GET st1
    r $other SET st1 live
    assert_equal "*-1\r\n" [exec_result $c]
    r $c DEBUG SET-ACTIVE-EXPIRE 1
}

test "WATCH of an already expired key: FLUSHDB and FLUSHALL are no change" {
    r $c DEBUG SET-ACTIVE-EXPIRE 0
    foreach flush {FLUSHDB FLUSHALL} {
        stale_key $c st2
        r $c WATCH st2 other_missing
        r $other $flush
        assert_equal "*1\r\n+PONG\r\n" [exec_result $c] $flush
    }
    # A live watched key next to it still counts.
    stale_key $c st2
    r $c SET live2 1
    r $c WATCH st2 live2
    r $other FLUSHDB
    assert_equal "*-1\r\n" [exec_result $c]
    r $c DEBUG SET-ACTIVE-EXPIRE 1
}

test "WATCH and SWAPDB: expired values on either side count as no value" {
    r $c DEBUG SET-ACTIVE-EXPIRE 0
    r $c FLUSHALL
    # stale <-> nothing
    r $c SELECT 3
    stale_key $c sw
    r $c WATCH sw
    r $other SWAPDB 3 4
    assert_equal "*1\r\n+PONG\r\n" [exec_result $c] "stale swapped for nothing"
    # nothing <-> stale (the stale key moved to db 4: watch it from db 3)
    r $c SELECT 3
    r $c WATCH sw
    r $other SWAPDB 3 4
    assert_equal "*1\r\n+PONG\r\n" [exec_result $c] "nothing swapped for stale"
    # stale <-> stale
    r $c FLUSHALL
    r $c SELECT 3
    stale_key $c sw
    r $c SELECT 4
    stale_key $c sw
    r $c WATCH sw
    r $other SWAPDB 3 4
    assert_equal "*1\r\n+PONG\r\n" [exec_result $c] "stale swapped for stale"
    # stale <-> live: a change
    r $c FLUSHALL
    r $c SELECT 3
    r $c SET sw live
    r $c SELECT 4
    stale_key $c sw
    r $c WATCH sw
    r $other SWAPDB 3 4
    assert_equal "*-1\r\n" [exec_result $c] "stale swapped for live"
    r $c FLUSHALL
    r $c SELECT 0
    r $c DEBUG SET-ACTIVE-EXPIRE 1
}

test "RESET discards the transaction and the watches" {
    r $c WATCH w
    r $c MULTI
    r $c SET w 100
    assert_equal RESET [r $c RESET]
    assert_error "ERR EXEC without MULTI" {r $c EXEC}
    assert {[r $c GET w] != 100}
}

test "CLIENT LIST shows the queue length" {
    r $c MULTI
    r $c PING
    r $c PING
    set line [r $other CLIENT LIST]
    assert_match "*multi=2*" $line
    r $c DISCARD
}

test "a refused EXEC ends the transaction with EXECABORT and the reason" {
    # arity: also outside MULTI, as in Redis
    assert_error "EXECABORT Transaction discarded because of: wrong number of arguments for 'exec' command" \
        {r $c EXEC extra}
    r $c MULTI
    r $c SET ea 1
    assert_error "EXECABORT Transaction discarded because of: wrong number of arguments for 'exec' command" \
        {r $c EXEC extra}
    assert_equal PONG [r $c PING] ;# not QUEUED: the transaction is gone
    # a busy script: the command queued meanwhile and EXEC are refused
    r $c CONFIG SET busy-reply-threshold 10
    r $c SET ea 1
    set busy [client $srv]
    r $c MULTI
    r $c INCR ea
    send_raw $busy [::cairn_h::encode {EVAL "while true do end" 0}]
    after 200
    assert_error "BUSY*" {r $c INCR ea}
    assert_error "EXECABORT Transaction discarded because of: BUSY*" {r $c EXEC}
    r $other SCRIPT KILL
    assert_error "*killed*" {read_reply $busy}
    close_client $busy
    assert_equal 1 [r $c GET ea]
    assert_equal PONG [r $c PING]
    r $c CONFIG SET busy-reply-threshold 5000
}

test "EXEC of a stale-unsafe command on a stale replica is refused" {
    r $c CONFIG SET replica-serve-stale-data no
    r $c MULTI
    r $c GET ea
    r $other REPLICAOF 127.0.0.1 1
    assert_error "EXECABORT*MASTERDOWN*" {r $c EXEC}
    # MULTI itself is allowed, and INFO (stale-safe) inside it runs
    r $c MULTI
    r $c INFO server
    set got [r $c EXEC]
    r $other REPLICAOF NO ONE
    r $c CONFIG SET replica-serve-stale-data yes
    assert_match "*redis_version*" [lindex $got 0]
}

if {[catch {r $c DEBUG PROPAGATED}]} {
    skip "transaction propagation" "server has no DEBUG PROPAGATED (not cairn)"
} else {
    test "a transaction is propagated as one MULTI ... EXEC unit" {
        r $c SELECT 0
        r $c DEBUG PROPAGATED
        r $c MULTI
        r $c SET p1 a
        r $c GET p1
        r $c SET p2 b
        r $c EXEC
        set got [r $c DEBUG PROPAGATED]
        assert_match "*MULTI*SET*p1*SET*p2*EXEC*" $got
        # A read-only transaction propagates nothing.
        r $c MULTI
        r $c GET p1
        r $c EXEC
        assert_equal "" [r $c DEBUG PROPAGATED]
    }
}

finish
