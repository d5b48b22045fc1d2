# type_list.tcl -- the list commands: LPUSH RPUSH LPUSHX RPUSHX LPOP RPOP
# (with count, RESP2/RESP3 shapes) LLEN LRANGE LINDEX LSET LINSERT LREM
# LTRIM LPOS LMOVE RPOPLPUSH LMPOP; error texts and argument checks;
# OBJECT ENCODING; node boundaries with small list-max-listpack-size
# values and LZ4-compressed inner nodes (list-compress-depth 1 and 2),
# checked against a Tcl model of the list; PLAIN nodes (elements at or
# above DEBUG QUICKLIST-PACKED-THRESHOLD) mixed with packed ones. Blocking
# commands are in blocking.tcl.

source [file join [file dirname [info script]] .. helpers harness.tcl]

set srv [start_server]
set c [client $srv]
r $c FLUSHALL

set WT "WRONGTYPE Operation against a key holding the wrong kind of value"
set NOTINT "ERR value is not an integer or out of range"

# LRANGE and LLEN must both agree with the Tcl list `model`.
proc check_model {key model} {
    assert_equal [llength $model] [r $::c LLEN $key] "LLEN $key"
    assert_equal $model [r $::c LRANGE $key 0 -1] "LRANGE $key"
}

# Runs body with the given CONFIG SET values, restoring the old ones even
# when the body fails.
proc with_config {pairs body} {
    set saved {}
    foreach {k v} $pairs {
        lappend saved $k [lindex [r $::c CONFIG GET $k] 1]
        r $::c CONFIG SET $k $v
    }
    set rc [catch {uplevel 1 $body} err opts]
    foreach {k v} $saved { r $::c CONFIG SET $k $v }
    return -options $opts $err
}

# ---------------------------------------------------------------------------
# push / pop
# ---------------------------------------------------------------------------

test "LPUSH and RPUSH return the new length and keep order" {
    r $c DEL l
    assert_equal ":2\r\n" [rraw $c RPUSH l b c]
    assert_equal 4 [r $c LPUSH l a0 a]
    assert_equal {a a0 b c} [r $c LRANGE l 0 -1]
    assert_equal list [r $c TYPE l]
    assert_equal 5 [r $c RPUSH l d]
    check_model l {a a0 b c d}
}

test "OBJECT ENCODING is quicklist for any list (Redis 7.0)" {
    r $c DEL l
    r $c RPUSH l x
    assert_equal quicklist [r $c OBJECT ENCODING l]
    for {set i 0} {$i < 300} {incr i} { r $c RPUSH l [string repeat x 100] }
    assert_equal quicklist [r $c OBJECT ENCODING l]
}

test "LPUSHX and RPUSHX only push onto existing lists" {
    r $c DEL l nolist
    assert_equal ":0\r\n" [rraw $c LPUSHX nolist a]
    assert_equal 0 [r $c RPUSHX nolist a b]
    assert_equal 0 [r $c EXISTS nolist]
    r $c RPUSH l m
    assert_equal 3 [r $c LPUSHX l b a]
    assert_equal 5 [r $c RPUSHX l y z]
    check_model l {a b m y z}
}

test "LPOP and RPOP without count" {
    r $c DEL l
    r $c RPUSH l a b c
    assert_equal "\$1\r\na\r\n" [rraw $c LPOP l]
    assert_equal c [r $c RPOP l]
    assert_equal b [r $c LPOP l]
    assert_equal 0 [r $c EXISTS l]
    assert_equal "\$-1\r\n" [rraw $c LPOP l]
    assert_equal "\$-1\r\n" [rraw $c RPOP l]
}

test "LPOP and RPOP with count" {
    r $c DEL l
    r $c RPUSH l a b c d e
    assert_equal "*2\r\n\$1\r\na\r\n\$1\r\nb\r\n" [rraw $c LPOP l 2]
    assert_equal {e d} [r $c RPOP l 2]
    assert_equal "*0\r\n" [rraw $c LPOP l 0]
    assert_equal {c} [r $c RPOP l 10]
    assert_equal 0 [r $c EXISTS l]
    # A missing key gives a null array, even with count 0.
    assert_equal "*-1\r\n" [rraw $c LPOP l 2]
    assert_equal "*-1\r\n" [rraw $c RPOP l 0]
}

test "LPOP count errors and arity" {
    r $c DEL l
    r $c RPUSH l a
    assert_error "ERR value is out of range, must be positive" {r $c LPOP l -1}
    assert_error "ERR value is out of range, must be positive" {r $c RPOP l abc}
    assert_error "ERR value is out of range, must be positive" {r $c LPOP nokey -1}
    assert_error "ERR wrong number of arguments for 'lpop' command" {r $c LPOP l 1 2}
    assert_error "ERR wrong number of arguments for 'rpop' command" {r $c RPOP}
    assert_equal 1 [r $c LLEN l]
}

test "LPOP/RPOP reply shapes in RESP3" {
    set c3 [client $srv -resp 3]
    r $c3 DEL l3
    assert_equal "_\r\n" [rraw $c3 LPOP l3]
    assert_equal "_\r\n" [rraw $c3 LPOP l3 2]
    assert_equal "_\r\n" [rraw $c3 RPOP l3 0]
    r $c3 RPUSH l3 a b
    assert_equal "*0\r\n" [rraw $c3 LPOP l3 0]
    assert_equal "*1\r\n\$1\r\nb\r\n" [rraw $c3 RPOP l3 1]
    assert_equal "\$1\r\na\r\n" [rraw $c3 LPOP l3]
    assert_equal "_\r\n" [rraw $c3 LMPOP 1 l3 LEFT]
    r $c3 RPUSH l3 x
    assert_equal "*2\r\n\$2\r\nl3\r\n*1\r\n\$1\r\nx\r\n" [rraw $c3 LMPOP 1 l3 LEFT]
    close_client $c3
}

# ---------------------------------------------------------------------------
# reads
# ---------------------------------------------------------------------------

test "LLEN" {
    r $c DEL l
    assert_equal ":0\r\n" [rraw $c LLEN l]
    r $c RPUSH l a b c
    assert_equal 3 [r $c LLEN l]
}

test "LINDEX" {
    r $c DEL l
    r $c RPUSH l a b c 42
    assert_equal a [r $c LINDEX l 0]
    assert_equal 42 [r $c LINDEX l -1]
    assert_equal "\$2\r\n42\r\n" [rraw $c LINDEX l 3]
    assert_equal b [r $c LINDEX l -3]
    assert_equal "\$-1\r\n" [rraw $c LINDEX l 4]
    assert_equal "\$-1\r\n" [rraw $c LINDEX l -5]
    assert_equal "\$-1\r\n" [rraw $c LINDEX l -9223372036854775808]
    assert_error $NOTINT {r $c LINDEX l abc}
    assert_error $NOTINT {r $c LINDEX l 9223372036854775808}
    # A missing key answers nil before the index is parsed.
    assert_equal "\$-1\r\n" [rraw $c LINDEX nokey abc]
}

test "LRANGE ranges" {
    r $c DEL l
    r $c RPUSH l 0 1 2 3 4 5 6 7 8 9
    assert_equal {0 1 2} [r $c LRANGE l 0 2]
    assert_equal {7 8 9} [r $c LRANGE l -3 -1]
    assert_equal {8 9} [r $c LRANGE l 8 100]
    assert_equal {0 1} [r $c LRANGE l -100 1]
    assert_equal "*0\r\n" [rraw $c LRANGE l 5 4]
    assert_equal "*0\r\n" [rraw $c LRANGE l 10 20]
    assert_equal "*0\r\n" [rraw $c LRANGE l -100 -50]
    assert_equal {5} [r $c LRANGE l 5 5]
    assert_equal "*0\r\n" [rraw $c LRANGE nokey 0 -1]
    assert_equal [r $c LRANGE l 0 -1] [r $c LRANGE l -9223372036854775808 9223372036854775807]
    assert_error $NOTINT {r $c LRANGE l 0 abc}
    assert_error $NOTINT {r $c LRANGE nokey x 1}
}

test "LPOS with RANK, COUNT and MAXLEN" {
    r $c DEL l
    r $c RPUSH l a b c a b c a
    assert_equal 0 [r $c LPOS l a]
    assert_equal 3 [r $c LPOS l a RANK 2]
    assert_equal 6 [r $c LPOS l a RANK -1]
    assert_equal 3 [r $c LPOS l a RANK -2]
    assert_equal {0 3 6} [r $c LPOS l a COUNT 0]
    assert_equal {0 3} [r $c LPOS l a COUNT 2]
    assert_equal {6 3} [r $c LPOS l a COUNT 2 RANK -1]
    assert_equal {3 6} [r $c lpos l a rank 2 count 5]
    assert_equal {0} [r $c LPOS l a COUNT 0 MAXLEN 3]
    assert_equal {6} [r $c LPOS l a COUNT 0 RANK -1 MAXLEN 3]
    assert_equal "\$-1\r\n" [rraw $c LPOS l a RANK 4]
    assert_equal "\$-1\r\n" [rraw $c LPOS l z]
    assert_equal "*0\r\n" [rraw $c LPOS l z COUNT 1]
    assert_equal "\$-1\r\n" [rraw $c LPOS l c MAXLEN 2]
    assert_equal "\$-1\r\n" [rraw $c LPOS nokey a]
    assert_equal "*0\r\n" [rraw $c LPOS nokey a COUNT 0]
    assert_equal "*0\r\n" [rraw $c LPOS l a RANK 9223372036854775807 COUNT 0]
    # RANK LONG_MIN behaves as Redis 7.0 does: from the tail, no COUNT stop.
    assert_equal 6 [r $c LPOS l a RANK -9223372036854775808]
    assert_equal {6 3 0} [r $c LPOS l a RANK -9223372036854775808 COUNT 1]
}

test "LPOS errors" {
    r $c DEL l
    r $c RPUSH l a
    r $c SET str x
    set rankerr "ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list"
    assert_error $rankerr {r $c LPOS l a RANK 0}
    # Options are checked before the key.
    assert_error $rankerr {r $c LPOS str a RANK 0}
    assert_error $NOTINT {r $c LPOS l a RANK x}
    assert_error "ERR COUNT can't be negative" {r $c LPOS l a COUNT -1}
    assert_error "ERR COUNT can't be negative" {r $c LPOS l a COUNT x}
    assert_error "ERR MAXLEN can't be negative" {r $c LPOS l a MAXLEN -1}
    assert_error "ERR syntax error" {r $c LPOS l a FOO 1}
    assert_error "ERR syntax error" {r $c LPOS l a RANK}
    assert_error $::WT {r $c LPOS str a}
}

# ---------------------------------------------------------------------------
# edits
# ---------------------------------------------------------------------------

test "LSET" {
    r $c DEL l
    r $c RPUSH l a b c
    assert_equal "+OK\r\n" [rraw $c LSET l 1 B]
    assert_equal OK [r $c LSET l -1 C]
    assert_equal OK [r $c LSET l 0 12345]
    check_model l {12345 B C}
    assert_error "ERR index out of range" {r $c LSET l 3 x}
    assert_error "ERR index out of range" {r $c LSET l -4 x}
    assert_error "ERR no such key" {r $c LSET nokey 0 x}
    assert_error "ERR no such key" {r $c LSET nokey abc x}
    assert_error $NOTINT {r $c LSET l abc x}
}

test "LINSERT" {
    r $c DEL l
    r $c RPUSH l a c e
    assert_equal 4 [r $c LINSERT l BEFORE c b]
    assert_equal 5 [r $c linsert l after e f]
    assert_equal 6 [r $c LINSERT l Before a 0]
    check_model l {0 a b c e f}
    assert_equal ":-1\r\n" [rraw $c LINSERT l BEFORE zz x]
    assert_equal ":0\r\n" [rraw $c LINSERT nokey BEFORE a x]
    assert_equal 0 [r $c EXISTS nokey]
    assert_error "ERR syntax error" {r $c LINSERT l MIDDLE a x}
    assert_error "ERR syntax error" {r $c LINSERT nokey MIDDLE a x}
    # Only the first occurrence of the pivot counts.
    r $c RPUSH l a
    assert_equal 8 [r $c LINSERT l AFTER a X]
    check_model l {0 a X b c e f a}
}

test "LREM from the head, the tail, and everywhere" {
    r $c DEL l
    r $c RPUSH l a b a c a b a
    assert_equal 2 [r $c LREM l 2 a]
    check_model l {b c a b a}
    assert_equal 1 [r $c LREM l -1 b]
    check_model l {b c a a}
    assert_equal 2 [r $c LREM l 0 a]
    check_model l {b c}
    assert_equal ":0\r\n" [rraw $c LREM l 0 zz]
    assert_equal 1 [r $c LREM l 0 c]
    assert_equal 1 [r $c LREM l 5 b]
    assert_equal 0 [r $c EXISTS l]
    assert_equal ":0\r\n" [rraw $c LREM l 0 a]
    assert_error $NOTINT {r $c LREM l x a}
    r $c RPUSH l a a a
    assert_equal 3 [r $c LREM l -9223372036854775808 a]
}

test "LTRIM" {
    r $c DEL l
    r $c RPUSH l 0 1 2 3 4 5 6 7 8 9
    assert_equal "+OK\r\n" [rraw $c LTRIM l 1 -2]
    check_model l {1 2 3 4 5 6 7 8}
    r $c LTRIM l -3 100
    check_model l {6 7 8}
    r $c LTRIM l -100 0
    check_model l {6}
    assert_equal OK [r $c LTRIM l 5 1]
    assert_equal 0 [r $c EXISTS l]
    assert_equal OK [r $c LTRIM nokey 0 1]
    assert_error $NOTINT {r $c LTRIM nokey a 1}
    r $c RPUSH l a b
    r $c LTRIM l 0 -1
    check_model l {a b}
    r $c LTRIM l 2 5
    assert_equal 0 [r $c EXISTS l]
}

# ---------------------------------------------------------------------------
# LMOVE / RPOPLPUSH / LMPOP
# ---------------------------------------------------------------------------

test "LMOVE in all four directions" {
    foreach {from to src dst val} {
        LEFT LEFT {b c} {a x y} a
        LEFT RIGHT {b c} {x y a} a
        RIGHT LEFT {a b} {c x y} c
        RIGHT RIGHT {a b} {x y c} c
    } {
        r $c DEL src dst
        r $c RPUSH src a b c
        r $c RPUSH dst x y
        assert_equal $val [r $c LMOVE src dst $from $to]
        check_model src $src
        check_model dst $dst
    }
    assert_error "ERR syntax error" {r $c LMOVE src dst UP LEFT}
    assert_error "ERR syntax error" {r $c LMOVE src dst left down}
}

test "LMOVE creates the destination, deletes an emptied source, rotates a list" {
    r $c DEL src dst
    r $c RPUSH src only
    assert_equal only [r $c LMOVE src dst right left]
    assert_equal 0 [r $c EXISTS src]
    check_model dst {only}
    assert_equal "\$-1\r\n" [rraw $c LMOVE src dst left left]
    r $c RPUSH dst a b
    assert_equal b [r $c LMOVE dst dst RIGHT LEFT]
    check_model dst {b only a}
    assert_equal b [r $c LMOVE dst dst LEFT RIGHT]
    check_model dst {only a b}
    r $c DEL one
    r $c RPUSH one 1
    assert_equal 1 [r $c LMOVE one one LEFT LEFT]
    check_model one {1}
}

test "LMOVE and RPOPLPUSH with wrong types" {
    r $c DEL src dst str
    r $c SET str x
    r $c RPUSH src a
    assert_error $::WT {r $c LMOVE src str LEFT LEFT}
    assert_error $::WT {r $c RPOPLPUSH src str}
    check_model src {a}
    assert_error $::WT {r $c LMOVE str src LEFT LEFT}
    # A missing source answers nil without looking at the destination.
    assert_equal "\$-1\r\n" [rraw $c RPOPLPUSH nokey str]
}

test "RPOPLPUSH" {
    r $c DEL src dst
    r $c RPUSH src a b c
    assert_equal c [r $c RPOPLPUSH src dst]
    assert_equal b [r $c RPOPLPUSH src dst]
    check_model dst {b c}
    check_model src {a}
    assert_equal a [r $c RPOPLPUSH src src]
    assert_equal "\$-1\r\n" [rraw $c RPOPLPUSH nokey dst]
}

test "LMPOP serves the first non-empty list" {
    r $c DEL l1 l2 l3
    r $c RPUSH l2 a b c d
    assert_equal "*2\r\n\$2\r\nl2\r\n*1\r\n\$1\r\na\r\n" [rraw $c LMPOP 3 l1 l2 l3 LEFT]
    assert_equal {l2 {d c}} [r $c LMPOP 2 l1 l2 right COUNT 2]
    assert_equal [list l2 [list b]] [r $c LMPOP 1 l2 LEFT count 10]
    assert_equal 0 [r $c EXISTS l2]
    assert_equal "*-1\r\n" [rraw $c LMPOP 2 l1 l2 LEFT]
    r $c SET l3 str
    assert_error $::WT {r $c LMPOP 3 l1 l2 l3 LEFT}
}

test "LMPOP argument errors" {
    r $c DEL l
    r $c RPUSH l a b c
    foreach n {0 -1 abc} {
        assert_error "ERR numkeys should be greater than 0" {r $c LMPOP $n l LEFT}
    }
    assert_error "ERR syntax error" {r $c LMPOP 2 l LEFT}
    assert_error "ERR syntax error" {r $c LMPOP 9223372036854775807 l LEFT}
    assert_error "ERR syntax error" {r $c LMPOP 1 l MIDDLE}
    assert_error "ERR count should be greater than 0" {r $c LMPOP 1 l LEFT COUNT 0}
    assert_error "ERR count should be greater than 0" {r $c LMPOP 1 l LEFT COUNT -1}
    assert_error "ERR count should be greater than 0" {r $c LMPOP 1 l LEFT COUNT x}
    assert_error "ERR syntax error" {r $c LMPOP 1 l LEFT COUNT}
    assert_error "ERR syntax error" {r $c LMPOP 1 l LEFT COUNT 1 COUNT 1}
    assert_error "ERR syntax error" {r $c LMPOP 1 l LEFT FOO}
    assert_error "ERR wrong number of arguments for 'lmpop' command" {r $c LMPOP 1 l}
    check_model l {a b c}
}

# ---------------------------------------------------------------------------
# types, arity, element forms
# ---------------------------------------------------------------------------

test "list commands against a string key fail with WRONGTYPE" {
    r $c DEL s
    r $c SET s x
    foreach cmd {
        {LPUSH s a} {RPUSH s a} {LPUSHX s a} {RPUSHX s a} {LPOP s} {RPOP s 2} {LLEN s}
        {LRANGE s 0 -1} {LINDEX s 0} {LSET s 0 a} {LINSERT s BEFORE a b} {LREM s 0 a}
        {LTRIM s 0 1} {LPOS s a} {LMOVE s d LEFT LEFT} {RPOPLPUSH s d} {LMPOP 1 s LEFT}
    } {
        assert_error $::WT {r $c {*}$cmd}
    }
    assert_equal x [r $c GET s]
}

test "wrong number of arguments" {
    foreach {cmd args} {
        lpush {k} rpush {k} lpushx {k} rpushx {k} lpop {} rpop {} llen {}
        llen {k x} lrange {k 0} lindex {k} lset {k 0} linsert {k before a}
        lrem {k 0} ltrim {k 0} lpos {k} lmove {a b left} rpoplpush {a}
        lmpop {1 k}
    } {
        assert_error "ERR wrong number of arguments for '$cmd' command" {r $c $cmd {*}$args}
    }
}

test "integers, binary data, empty and large elements round-trip" {
    r $c DEL l
    set big [string repeat "abc\x00\xff" 20000]
    set vals [list 0 -1 1 01 -0 " 1" 9223372036854775807 -9223372036854775808 \
            9223372036854775808 12345678901234567890 "" "a\r\nb" "\x00\x01" 3.14 $big 7]
    foreach v $vals { r $c RPUSH l $v }
    check_model l $vals
    assert_equal $big [r $c LINDEX l -2]
    # Integer entries match only their canonical spelling.
    assert_equal 3 [r $c LPOS l 01]
    assert_equal 2 [r $c LPOS l 1]
    assert_equal 4 [r $c LPOS l -0]
    assert_equal 1 [r $c LREM l 0 9223372036854775807]
    assert_equal 1 [r $c LREM l 0 $big]
    assert_equal 6 [r $c LPOS l -9223372036854775808]
}

test "keyspace events of the list commands" {
    set s [client $srv]
    r $s PSUBSCRIBE "__keyevent@0__:*"
    send_cmd $s SUBSCRIBE e:mark
    assert_equal {subscribe e:mark 2} [read_reply $s]
    r $c DEL e:l e:m e:t e:u e:w e:x
    with_config {notify-keyspace-events KEA} {
        foreach cmd {
            {RPUSH e:l a b c d e} {LPUSH e:l z} {LPUSHX e:none x} {RPUSHX e:l y} {LPOP e:l}
            {RPOP e:l 2} {LPOP e:l 0} {LSET e:l 0 Q} {LINSERT e:l BEFORE Q P}
            {LINSERT e:l BEFORE zz P} {LREM e:l 0 nothere} {LREM e:l 1 P} {LTRIM e:l 0 -1}
            {LMOVE e:l e:m LEFT RIGHT} {RPOPLPUSH e:l e:l} {LMPOP 2 e:none e:l LEFT COUNT 1}
            {LTRIM e:l 5 1} {RPUSH e:t 1} {RPOP e:t 5} {RPUSH e:u 1 2 1} {LREM e:u 0 1}
            {LREM e:u 0 2} {BLPOP e:m 0}
        } {
            r $c {*}$cmd
        }
        set w [client $srv]
        send_cmd $w BLMOVE e:w e:x LEFT LEFT 0
        wait_for {[info_field $c blocked_clients] == 1}
        r $c RPUSH e:w v
        assert_equal v [read_reply $w]
        close_client $w
        r $c PUBLISH e:mark done
    }
    set got {}
    while {1} {
        set m [read_reply $s]
        if {[lindex $m 0] eq "message"} break
        lappend got [list [string range [lindex $m 2] 15 end] [lindex $m 3]]
    }
    close_client $s
    set want {{rpush e:l} {lpush e:l} {rpush e:l} {lpop e:l} {rpop e:l} {lset e:l}
        {linsert e:l} {lrem e:l} {ltrim e:l} {rpush e:m} {lpop e:l} {lpush e:l} {rpop e:l}
        {lpop e:l} {ltrim e:l} {del e:l} {rpush e:t} {rpop e:t} {del e:t} {rpush e:u}
        {lrem e:u} {lrem e:u} {del e:u} {lpop e:m} {del e:m} {rpush e:w} {lpush e:x}
        {lpop e:w} {del e:w}}
    assert_equal [lrange $want 0 end] $got
}

test "COPY duplicates a list; RENAME and MOVE keep it intact" {
    r $c DEL l l2 l3
    for {set i 0} {$i < 500} {incr i} { r $c RPUSH l "element-$i" }
    assert_equal 1 [r $c COPY l l2]
    r $c LPUSH l2 new
    r $c LTRIM l 0 9
    assert_equal 501 [r $c LLEN l2]
    assert_equal {new element-0} [r $c LRANGE l2 0 1]
    assert_equal 10 [r $c LLEN l]
    assert_equal OK [r $c RENAME l2 l3]
    assert_equal element-499 [r $c LINDEX l3 -1]
    r $c SELECT 9
    r $c DEL l3
    r $c SELECT 0
    assert_equal 1 [r $c MOVE l3 9]
    r $c SELECT 9
    assert_equal 501 [r $c LLEN l3]
    assert_equal quicklist [r $c OBJECT ENCODING l3]
    r $c DEL l3
    r $c SELECT 0
    assert {[r $c MEMORY USAGE l] > 0}
}

# ---------------------------------------------------------------------------
# node boundaries and compression, against a model
# ---------------------------------------------------------------------------

# Random operations on key `l`, mirrored on a Tcl list; compared after
# every step. Elements come from `gen` (a proc returning one element).
proc random_ops {steps gen} {
    r $::c DEL l
    set m {}
    for {set s 0} {$s < $steps} {incr s} {
        set op [expr {int(rand() * 10)}]
        set n [llength $m]
        switch $op {
            0 - 1 - 2 {
                set v [$gen]
                if {rand() < 0.5} { r $::c LPUSH l $v; set m [linsert $m 0 $v] } else { r $::c RPUSH l $v; lappend m $v }
            }
            3 {
                if {$n == 0} continue
                set i [expr {int(rand() * $n)}]
                set v [$gen]
                set where [expr {rand() < 0.5 ? "BEFORE" : "AFTER"}]
                set pivot [lindex $m $i]
                set first [lsearch -exact $m $pivot]
                r $::c LINSERT l $where $pivot $v
                set m [linsert $m [expr {$where eq "BEFORE" ? $first : $first + 1}] $v]
            }
            4 {
                if {$n == 0} continue
                set i [expr {int(rand() * $n)}]
                set v [$gen]
                r $::c LSET l [expr {rand() < 0.5 ? $i : $i - $n}] $v
                lset m $i $v
            }
            5 {
                if {$n == 0} continue
                set v [lindex $m [expr {int(rand() * $n)}]]
                set cnt [expr {int(rand() * 5) - 2}]
                set removed [r $::c LREM l $cnt $v]
                set idx [lsearch -all -exact $m $v]
                if {$cnt < 0} { set idx [lreverse $idx] }
                if {$cnt != 0} { set idx [lrange $idx 0 [expr {abs($cnt) - 1}]] }
                assert_equal [llength $idx] $removed
                foreach i [lsort -integer -decreasing $idx] { set m [lreplace $m $i $i] }
            }
            6 {
                if {$n < 20} continue
                set a [expr {int(rand() * 5)}]
                set b [expr {-1 - int(rand() * 5)}]
                r $::c LTRIM l $a $b
                set m [lrange $m $a end-[expr {-$b - 1}]]
            }
            7 {
                set k [expr {1 + int(rand() * 3)}]
                if {rand() < 0.5} {
                    set got [r $::c LPOP l $k]
                    assert_equal [lrange $m 0 [expr {$k - 1}]] $got
                    set m [lrange $m $k end]
                } else {
                    set got [r $::c RPOP l $k]
                    assert_equal [lreverse [lrange $m end-[expr {$k - 1}] end]] $got
                    set m [lrange $m 0 end-$k]
                }
            }
            8 {
                if {$n == 0} continue
                set i [expr {int(rand() * $n)}]
                assert_equal [lindex $m $i] [r $::c LINDEX l $i]
                assert_equal [lindex $m $i] [r $::c LINDEX l [expr {$i - $n}]]
                set j [expr {$i + int(rand() * 30)}]
                assert_equal [lrange $m $i $j] [r $::c LRANGE l $i $j]
            }
            9 {
                if {$n == 0} continue
                set v [lindex $m [expr {int(rand() * $n)}]]
                assert_equal [lsearch -all -exact $m $v] [r $::c LPOS l $v COUNT 0]
            }
        }
        if {$s % 20 == 0} { check_model l $m }
    }
    check_model l $m
    return $m
}

set ::elem_seq 0
proc gen_small {} {
    switch [expr {int(rand() * 4)}] {
        0 { return [expr {int(rand() * 20)}] }
        1 { return [string repeat [format %c [expr {97 + int(rand() * 3)}]] [expr {int(rand() * 5)}]] }
        2 { return "v[incr ::elem_seq]" }
        default { return [string repeat "compressible-" [expr {1 + int(rand() * 12)}]] }
    }
}

foreach fill {1 2 3 -1 -2} {
    test "random edits with list-max-listpack-size $fill" {
        with_config [list list-max-listpack-size $fill] {
            random_ops 400 gen_small
        }
    }
}

foreach depth {1 2} {
    test "compressed inner nodes (list-compress-depth $depth): edits in the middle keep contents" {
        with_config [list list-max-listpack-size 4 list-compress-depth $depth] {
            r $c DEL l
            set m {}
            for {set i 0} {$i < 400} {incr i} {
                set v "item-$i-[string repeat z [expr {$i % 50}]]"
                lappend m $v
            }
            r $c RPUSH l {*}$m
            check_model l $m
            # LINSERT, LSET and LREM deep inside (compressed nodes).
            assert_equal 401 [r $c LINSERT l BEFORE [lindex $m 200] inserted]
            set m [linsert $m 200 inserted]
            r $c LSET l 150 replaced
            lset m 150 replaced
            r $c LSET l -150 replaced2
            lset m end-149 replaced2
            assert_equal 1 [r $c LREM l 0 [lindex $m 300]]
            set m [lreplace $m 300 300]
            assert_equal [lindex $m 250] [r $c LINDEX l 250]
            assert_equal [lrange $m 100 120] [r $c LRANGE l 100 120]
            check_model l $m
            # Trim into the compressed zone: new ends must still read back.
            r $c LTRIM l 97 -97
            set m [lrange $m 97 end-96]
            check_model l $m
            assert_equal [lindex $m 0] [r $c LPOP l]
            assert_equal [lindex $m end] [r $c RPOP l]
            set m [lrange $m 1 end-1]
            check_model l $m
        }
    }

    test "random edits on a long compressed list (depth $depth)" {
        with_config [list list-max-listpack-size 3 list-compress-depth $depth] {
            r $c DEL l
            set pre {}
            for {set i 0} {$i < 150} {incr i} { lappend pre [string repeat "abc$i-" 5] }
            r $c RPUSH l {*}$pre
            random_ops 300 gen_small
        }
    }
}

test "settings apply to lists created afterwards" {
    with_config {list-max-listpack-size 1 list-compress-depth 1} {
        r $c DEL l
        r $c RPUSH l a b c
    }
    for {set i 0} {$i < 50} {incr i} { r $c RPUSH l [string repeat x 60] }
    assert_equal 53 [r $c LLEN l]
    assert_equal {a b c} [r $c LRANGE l 0 2]
}

# ---------------------------------------------------------------------------
# PLAIN nodes: elements at or above the packed threshold live alone
# ---------------------------------------------------------------------------

# Runs body with the packed threshold at size, restoring the default after.
proc with_threshold {size body} {
    r $::c DEBUG QUICKLIST-PACKED-THRESHOLD $size
    set rc [catch {uplevel 1 $body} err opts]
    r $::c DEBUG QUICKLIST-PACKED-THRESHOLD 0
    return -options $opts $err
}

test "DEBUG QUICKLIST-PACKED-THRESHOLD takes memory sizes up to 4 GB - 1 MB" {
    set err "ERR argument must be a memory value bigger than 1 and smaller than 4gb"
    foreach ok {1b 10 1kb 2K 5mb 1gb 4095mb 0} {
        assert_equal OK [r $c DEBUG QUICKLIST-PACKED-THRESHOLD $ok] $ok
    }
    foreach bad {4gb 4294967295 5000000000 -1 abc 1x 10tb} {
        assert_error $err {r $c DEBUG QUICKLIST-PACKED-THRESHOLD $bad}
    }
    assert_error "ERR unknown subcommand*" {r $c DEBUG QUICKLIST-PACKED-THRESHOLD}
    assert_match "*QUICKLIST-PACKED-THRESHOLD <size>*" [r $c DEBUG HELP]
}

test "every list command over PLAIN nodes (threshold 1 byte)" {
    with_threshold 1b {
        r $c DEL l l2
        r $c RPUSH l 9 xxxxxxxxxx 10 abc
        assert_equal quicklist [r $c OBJECT ENCODING l]
        check_model l {9 xxxxxxxxxx 10 abc}
        # Digits are kept as bytes: only the exact spelling matches.
        assert_equal 0 [r $c LPOS l 9]
        assert_equal {} [r $c LPOS l 09]
        assert_equal 2 [r $c LPOS l 10 RANK -1]
        assert_equal 5 [r $c LINSERT l BEFORE 9 8]
        assert_equal 6 [r $c LINSERT l AFTER abc tail]
        assert_equal 7 [r $c LINSERT l AFTER xxxxxxxxxx yy]
        check_model l {8 9 xxxxxxxxxx yy 10 abc tail}
        assert_equal xxxxxxxxxx [r $c LINDEX l 2]
        assert_equal yy [r $c LINDEX l -4]
        assert_equal OK [r $c LSET l 3 zzz]
        assert_equal OK [r $c LSET l -1 t]
        check_model l {8 9 xxxxxxxxxx zzz 10 abc t}
        r $c RPUSH l 9 9
        assert_equal 2 [r $c LREM l -2 9]
        check_model l {8 9 xxxxxxxxxx zzz 10 abc t}
        r $c LTRIM l 1 -2
        check_model l {9 xxxxxxxxxx zzz 10 abc}
        assert_equal 9 [r $c LMOVE l l2 LEFT RIGHT]
        assert_equal abc [r $c RPOPLPUSH l l2]
        check_model l2 {abc 9}
        assert_equal {xxxxxxxxxx zzz} [r $c LPOP l 2]
        assert_equal {10} [r $c RPOP l 5]
        assert_equal 0 [r $c EXISTS l]
        assert_equal {abc 9} [r $c SORT l2 ALPHA DESC]
        r $c COPY l2 l3
        check_model l3 {abc 9}
        assert_equal {l2 9} [r $c BRPOP l2 0]
        assert_equal {l3 {abc 9}} [r $c LMPOP 1 l3 LEFT COUNT 5]
    }
}

test "LSET between PLAIN and packed nodes: every combination and position" {
    foreach fill {1 -2} {
        foreach depth {0 1} {
            with_config [list list-max-listpack-size $fill list-compress-depth $depth] {
                with_threshold 5b {
                    r $c DEL l
                    set m {aa bb cc dd ee ff gg}
                    r $c RPUSH l {*}$m
                    # packed -> plain: inside a node, at its ends, the only one
                    foreach {i v} {3 DDDDDD 0 AAAAAAA 6 GGGGGGGG 1 BBBBBBBBB} {
                        r $c LSET l $i $v
                        lset m $i $v
                        check_model l $m
                    }
                    # plain -> plain, plain -> packed, packed -> packed
                    foreach {i v} {3 dddddddddddddd 0 a -1 g 1 b 2 c} {
                        r $c LSET l $i $v
                        lset m [expr {$i < 0 ? [llength $m] + $i : $i}] $v
                        check_model l $m
                    }
                    assert_equal $m [r $c LPOP l 7]
                }
            }
        }
    }
}

test "a large LSET on the last element next to a compressed node" {
    # [large] [small small]: the new large element goes after the node whose
    # last element it replaces, which then lies between two others.
    with_config {list-compress-depth 1} {
        with_threshold 100b {
            r $c DEL l
            set large [string repeat x 100]
            set small [string repeat y 32]
            r $c RPUSH l $large $small $small
            r $c LSET l -1 $large
            check_model l [list $large $small $large]
            r $c LSET l 1 $large
            check_model l [list $large $large $large]
            r $c LSET l 1 z
            check_model l [list $large z $large]
        }
    }
}

proc gen_around_threshold {} {
    # The threshold is 20 bytes: about half the elements are PLAIN.
    set n [lindex {0 1 3 10 19 20 21 40 300} [expr {int(rand() * 9)}]]
    if {rand() < 0.2} { return [expr {int(rand() * 1000000)}] }
    return [string repeat [format %c [expr {97 + int(rand() * 3)}]] $n]
}

foreach fill {1 3 -2} {
    foreach depth {0 1 2} {
        test "random edits with PLAIN nodes mixed in (fill $fill, compress depth $depth)" {
            with_config [list list-max-listpack-size $fill list-compress-depth $depth] {
                with_threshold 20b {
                    random_ops 300 gen_around_threshold
                }
            }
        }
    }
}

finish
