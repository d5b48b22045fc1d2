# type_hash.tcl -- the hash commands: HSET HSETNX HMSET HGET HMGET HDEL HLEN
# HSTRLEN HEXISTS HKEYS HVALS HGETALL HINCRBY HINCRBYFLOAT HRANDFIELD HSCAN,
# both encodings (listpack, hashtable) and the conversion between them (by
# number of entries and by string length, also through HSETNX, HINCRBY and
# HINCRBYFLOAT), RESP3 shapes, error texts, WRONGTYPE and arity; at the end
# cairn-only checks (single keyspace lookup, propagation), skipped on Redis.

source [file join [file dirname [info script]] .. helpers harness.tcl]

set srv [start_server]
set c [client $srv]
r $c FLUSHALL

# Small thresholds on a second server, so conversions need few commands.
set ssrv [start_server -config {hash-max-listpack-entries 4 hash-max-listpack-value 8}]
set sc [client $ssrv]

proc enc {cl key} { return [r $cl OBJECT ENCODING $key] }

# HGETALL as a sorted list of "field value" pairs (order-independent).
proc sorted_pairs {cl key} {
    set out {}
    foreach {f v} [r $cl HGETALL $key] { lappend out [list $f $v] }
    return [lsort $out]
}

# Fills key with n fields f0..f(n-1) holding v0..v(n-1).
proc fill_hash {cl key n} {
    r $cl DEL $key
    set args {}
    for {set i 0} {$i < $n} {incr i} { lappend args f$i v$i }
    r $cl HSET $key {*}$args
}

set long64 [string repeat x 64]
set long65 [string repeat y 65]

# ---------------------------------------------------------------------------
# HSET HMSET HSETNX HGET HMGET
# ---------------------------------------------------------------------------

test "HSET creates the hash and counts new fields only" {
    r $c DEL h
    assert_equal 2 [r $c HSET h a 1 b 2]
    assert_equal 1 [r $c HSET h a 10 c 3]
    assert_equal 0 [r $c HSET h a 11]
    assert_equal 11 [r $c HGET h a]
    assert_equal {a 11 b 2 c 3} [r $c HGETALL h]
    assert_equal hash [r $c TYPE h]
    assert_equal listpack [enc $c h]
}

test "HSET with the same field twice keeps the last value" {
    r $c DEL h
    assert_equal 1 [r $c HSET h f 1 f 2]
    assert_equal 2 [r $c HGET h f]
    assert_equal 1 [r $c HLEN h]
}

test "HSET and HMSET argument count" {
    assert_error "ERR wrong number of arguments for 'hset' command" {r $c HSET h a}
    assert_error "ERR wrong number of arguments for 'hset' command" {r $c HSET h a 1 b}
    assert_error "ERR wrong number of arguments for 'hmset' command" {r $c HMSET h a}
    assert_error "ERR wrong number of arguments for 'hmset' command" {r $c HMSET h a 1 b}
    assert_error "ERR wrong number of arguments for 'hset' command" {r $c HSET h}
}

test "HMSET replies OK" {
    r $c DEL h
    assert_equal "+OK\r\n" [rraw $c HMSET h a 1 b 2]
    assert_equal "+OK\r\n" [rraw $c hmset h a 3]
    assert_equal {a 3 b 2} [r $c HGETALL h]
}

test "HSET is binary safe and keeps integer-like strings as given" {
    r $c DEL h
    set f "bin\x00\r\nfield\xff"
    set v "val\x00\r\n\xfe"
    r $c HSET h $f $v 007 -0 big 18446744073709551616 neg -9223372036854775808 sp " 1" e ""
    assert_equal $v [r $c HGET h $f]
    assert_equal -0 [r $c HGET h 007]
    assert_equal 18446744073709551616 [r $c HGET h big]
    assert_equal -9223372036854775808 [r $c HGET h neg]
    assert_equal " 1" [r $c HGET h sp]
    assert_equal "\$0\r\n\r\n" [rraw $c HGET h e]
    assert_equal "\$20\r\n-9223372036854775808\r\n" [rraw $c HGET h neg]
}

test "HGET of a missing field or key is null" {
    r $c DEL h
    assert_equal "\$-1\r\n" [rraw $c HGET h f]
    r $c HSET h a 1
    assert_equal "\$-1\r\n" [rraw $c HGET h nofield]
}

test "HMGET returns values and nulls in order" {
    r $c DEL h
    r $c HSET h a 1 b hello
    assert_equal "*4\r\n\$1\r\n1\r\n\$-1\r\n\$5\r\nhello\r\n\$1\r\n1\r\n" [rraw $c HMGET h a x b a]
    assert_equal "*2\r\n\$-1\r\n\$-1\r\n" [rraw $c HMGET h:missing a b]
}

test "HSETNX sets only new fields" {
    r $c DEL h
    assert_equal 1 [r $c HSETNX h a 1]
    assert_equal 0 [r $c HSETNX h a 2]
    assert_equal 1 [r $c HGET h a]
    assert_equal 1 [r $c HSETNX h b 2]
    assert_equal {a 1 b 2} [r $c HGETALL h]
}

# ---------------------------------------------------------------------------
# HDEL HLEN HEXISTS HSTRLEN
# ---------------------------------------------------------------------------

test "HDEL counts removed fields" {
    r $c DEL h
    r $c HSET h a 1 b 2 c 3 d 4
    assert_equal 2 [r $c HDEL h a b x]
    assert_equal 0 [r $c HDEL h a]
    assert_equal 1 [r $c HDEL h c c]
    assert_equal {d 4} [r $c HGETALL h]
    assert_equal 0 [r $c HDEL h:missing a]
}

test "HDEL of the last field deletes the key and its TTL" {
    r $c DEL h
    r $c HSET h a 1 b 2
    r $c EXPIRE h 1000
    assert_equal 2 [r $c HDEL h a b c]
    assert_equal 0 [r $c EXISTS h]
    r $c HSET h a 1
    assert_equal -1 [r $c TTL h]
}

test "HSET and HINCRBY keep the TTL" {
    r $c DEL h
    r $c HSET h a 1
    r $c EXPIRE h 1000
    r $c HSET h b 2
    r $c HINCRBY h a 1
    r $c HINCRBYFLOAT h a 1.5
    r $c HSETNX h c 1
    assert_range [r $c TTL h] 990 1000
}

test "HLEN and HEXISTS" {
    r $c DEL h
    assert_equal 0 [r $c HLEN h]
    assert_equal 0 [r $c HEXISTS h a]
    r $c HSET h a 1 b 2
    assert_equal 2 [r $c HLEN h]
    assert_equal 1 [r $c HEXISTS h a]
    assert_equal 0 [r $c HEXISTS h z]
}

test "HSTRLEN counts the bytes of the value, also for integers" {
    r $c DEL h
    r $c HSET h s hello i -123 z 0 big 9223372036854775807 e "" bin "a\x00b"
    assert_equal 5 [r $c HSTRLEN h s]
    assert_equal 4 [r $c HSTRLEN h i]
    assert_equal 1 [r $c HSTRLEN h z]
    assert_equal 19 [r $c HSTRLEN h big]
    assert_equal 0 [r $c HSTRLEN h e]
    assert_equal 3 [r $c HSTRLEN h bin]
    assert_equal 0 [r $c HSTRLEN h nofield]
    assert_equal 0 [r $c HSTRLEN h:missing s]
}

# ---------------------------------------------------------------------------
# HKEYS HVALS HGETALL
# ---------------------------------------------------------------------------

test "HKEYS HVALS HGETALL on a listpack hash keep insertion order" {
    r $c DEL h
    r $c HSET h z 1 a 2 m 3
    r $c HSET h a 20
    assert_equal {z a m} [r $c HKEYS h]
    assert_equal {1 20 3} [r $c HVALS h]
    assert_equal "*6\r\n\$1\r\nz\r\n\$1\r\n1\r\n\$1\r\na\r\n\$2\r\n20\r\n\$1\r\nm\r\n\$1\r\n3\r\n" \
        [rraw $c HGETALL h]
    r $c HDEL h z
    r $c HSET h z 9
    assert_equal {a m z} [r $c HKEYS h]
}

test "HKEYS HVALS HGETALL of a missing key are empty arrays" {
    r $c DEL h
    assert_equal "*0\r\n" [rraw $c HKEYS h]
    assert_equal "*0\r\n" [rraw $c HVALS h]
    assert_equal "*0\r\n" [rraw $c HGETALL h]
}

test "HKEYS HVALS HGETALL on a hashtable hash" {
    fill_hash $c h 600
    assert_equal hashtable [enc $c h]
    assert_equal 600 [llength [r $c HKEYS h]]
    assert_equal 600 [llength [r $c HVALS h]]
    set pairs [r $c HGETALL h]
    assert_equal 1200 [llength $pairs]
    foreach {f v} $pairs {
        assert_equal "v[string range $f 1 end]" $v
    }
    set keys [lsort [r $c HKEYS h]]
    set expect {}
    for {set i 0} {$i < 600} {incr i} { lappend expect f$i }
    assert_equal [lsort $expect] $keys
}

# ---------------------------------------------------------------------------
# HINCRBY HINCRBYFLOAT
# ---------------------------------------------------------------------------

test "HINCRBY creates the key and the field" {
    r $c DEL h
    assert_equal 5 [r $c HINCRBY h f 5]
    assert_equal -3 [r $c HINCRBY h f -8]
    assert_equal -3 [r $c HGET h f]
    assert_equal 10 [r $c HINCRBY h g 10]
    assert_equal 2 [r $c HLEN h]
}

test "HINCRBY on values stored as strings" {
    r $c DEL h
    r $c HSET h a 17179869184 b " 1" c 1.5 d "" e 007 f 12345678901234567890 g -0
    assert_equal 17179869185 [r $c HINCRBY h a 1]
    foreach field {b c d e f g} {
        assert_error "ERR hash value is not an integer" {r $c HINCRBY h $field 1}
    }
    assert_equal 007 [r $c HGET h e]
}

test "HINCRBY overflow and argument errors" {
    r $c DEL h
    r $c HSET h max 9223372036854775807 min -9223372036854775808
    assert_error "ERR increment or decrement would overflow" {r $c HINCRBY h max 1}
    assert_error "ERR increment or decrement would overflow" {r $c HINCRBY h min -1}
    assert_equal -1 [r $c HINCRBY h max -9223372036854775808]
    assert_equal -1 [r $c HINCRBY h min 9223372036854775807]
    assert_equal 9223372036854775806 [r $c HINCRBY h min 9223372036854775807]
    foreach bad {abc 1.5 "" " 1" 9223372036854775808 0x10} {
        assert_error "ERR value is not an integer or out of range" {r $c HINCRBY h x $bad}
    }
    assert_equal 0 [r $c HEXISTS h x]
    r $c DEL h2
    assert_error "ERR value is not an integer or out of range" {r $c HINCRBY h2 x abc}
    assert_equal 0 [r $c EXISTS h2]
}

test "HINCRBYFLOAT creates, increments and formats" {
    r $c DEL h
    assert_equal 10.5 [r $c HINCRBYFLOAT h f 10.5]
    assert_equal 10.6 [r $c HINCRBYFLOAT h f 0.1]
    assert_equal 5010.60000000000000009 [r $c HINCRBYFLOAT h f 5.0e3]
    assert_equal 2.5 [r $c HINCRBYFLOAT h e 2.5e0]
    assert_equal 1 [r $c HINCRBYFLOAT h g 1.0]
    assert_equal 16 [r $c HINCRBYFLOAT h x 0x10]
    assert_equal 0 [r $c HINCRBYFLOAT h z -0.0]
    r $c HSET h i 3
    assert_equal 4.5 [r $c HINCRBYFLOAT h i 1.5]
    assert_equal "\$3\r\n4.5\r\n" [rraw $c HGET h i]
    assert_equal 1.00001 [r $c HINCRBYFLOAT h one 1.00001]
}

test "HINCRBYFLOAT errors" {
    r $c DEL h
    r $c HSET h s abc sp " 1" nul "1\x00" e ""
    foreach field {s sp nul e} {
        assert_error "ERR hash value is not a float" {r $c HINCRBYFLOAT h $field 1}
    }
    assert_error "ERR value is not a valid float" {r $c HINCRBYFLOAT h f abc}
    assert_error "ERR value is not a valid float" {r $c HINCRBYFLOAT h f nan}
    assert_error "ERR value is not a valid float" {r $c HINCRBYFLOAT h f ""}
    assert_error "ERR value is NaN or Infinity" {r $c HINCRBYFLOAT h f inf}
    assert_error "ERR value is NaN or Infinity" {r $c HINCRBYFLOAT h f -inf}
    r $c HSET h big 1.1e4932 huge 1e4933
    assert_error "ERR increment would produce NaN or Infinity" {r $c HINCRBYFLOAT h big 1e4932}
    assert_error "ERR hash value is not a float" {r $c HINCRBYFLOAT h huge 1}
    assert_equal 0 [r $c HEXISTS h f]
    r $c DEL h2
    assert_error "ERR value is NaN or Infinity" {r $c HINCRBYFLOAT h2 f inf}
    assert_equal 0 [r $c EXISTS h2]
}

# ---------------------------------------------------------------------------
# Encodings and conversion
# ---------------------------------------------------------------------------

test "Default thresholds: 512 entries stay listpack, 513 convert" {
    assert_equal {hash-max-listpack-entries 512} [r $c CONFIG GET hash-max-listpack-entries]
    assert_equal {hash-max-listpack-value 64} [r $c CONFIG GET hash-max-listpack-value]
    fill_hash $c h 512
    assert_equal listpack [enc $c h]
    r $c HSET h f0 again
    assert_equal listpack [enc $c h]
    r $c HSET h extra 1
    assert_equal hashtable [enc $c h]
    assert_equal 513 [r $c HLEN h]
    assert_equal again [r $c HGET h f0]
    assert_equal v511 [r $c HGET h f511]
}

test "Default thresholds: 64-byte strings stay listpack, 65 convert" {
    r $c DEL h
    r $c HSET h $long64 $long64
    assert_equal listpack [enc $c h]
    r $c HSET h a $long65
    assert_equal hashtable [enc $c h]
    assert_equal $long65 [r $c HGET h a]
    assert_equal $long64 [r $c HGET h $long64]
    r $c DEL h
    r $c HSET h $long65 1
    assert_equal hashtable [enc $c h]
}

test "A hashtable hash never converts back" {
    r $c DEL h
    r $c HSET h a $long65 b 1
    r $c HDEL h a
    assert_equal hashtable [enc $c h]
    r $c HSET h c 2
    assert_equal hashtable [enc $c h]
}

test "Conversion by entries keeps every field" {
    r $sc DEL h
    r $sc HSET h a 1 b 2 c 3 d 4
    assert_equal listpack [enc $sc h]
    set before [sorted_pairs $sc h]
    r $sc HSET h e 5
    assert_equal hashtable [enc $sc h]
    assert_equal [lsort [concat $before {{e 5}}]] [sorted_pairs $sc h]
}

test "Conversion when one of several HSET arguments is too long" {
    r $sc DEL h
    r $sc HSET h a 1
    # Converts even though the long value is for an existing field and the
    # other pairs are short: the whole argument list is checked first.
    r $sc HSET h b 2 a 123456789
    assert_equal hashtable [enc $sc h]
    assert_equal {{a 123456789} {b 2}} [sorted_pairs $sc h]
    r $sc DEL h
    r $sc HSET h 123456789 x
    assert_equal hashtable [enc $sc h]
    r $sc DEL h
    r $sc HSET h 12345678 12345678
    assert_equal listpack [enc $sc h]
}

test "HSETNX converts only when it sets" {
    r $sc DEL h
    r $sc HSET h a 1
    assert_equal 0 [r $sc HSETNX h a 123456789]
    assert_equal listpack [enc $sc h]
    assert_equal 1 [r $sc HSETNX h b 123456789]
    assert_equal hashtable [enc $sc h]
    r $sc DEL h
    r $sc HSET h a 1 b 2 c 3 d 4
    assert_equal 0 [r $sc HSETNX h d 5]
    assert_equal listpack [enc $sc h]
    assert_equal 1 [r $sc HSETNX h e 5]
    assert_equal hashtable [enc $sc h]
    r $sc DEL h
    r $sc HSETNX h 123456789 1
    assert_equal hashtable [enc $sc h]
}

test "HINCRBY converts on a long field name and on the entry count" {
    r $sc DEL h
    r $sc HSET h a 1
    r $sc HINCRBY h 123456789 1
    assert_equal hashtable [enc $sc h]
    r $sc DEL h
    r $sc HINCRBY h a 99999999
    assert_equal listpack [enc $sc h]
    # The result is 9 bytes, longer than the value limit.
    assert_equal 100000000 [r $sc HINCRBY h a 1]
    assert_equal hashtable [enc $sc h]
    r $sc DEL h
    r $sc HSET h a 1 b 2 c 3 d 4
    r $sc HINCRBY h d 1
    assert_equal listpack [enc $sc h]
    r $sc HINCRBY h e 1
    assert_equal hashtable [enc $sc h]
    assert_equal 5 [r $sc HGET h d]
}

test "HINCRBYFLOAT converts on a long result" {
    r $sc DEL h
    r $sc HINCRBYFLOAT h f 1.5
    assert_equal listpack [enc $sc h]
    assert_equal 1.000000005 [r $sc HINCRBYFLOAT h f -0.499999995]
    assert_equal hashtable [enc $sc h]
    assert_equal 1.000000005 [r $sc HGET h f]
    r $c DEL h
    r $c HSET h d 1
    set r [r $c HINCRBYFLOAT h d 1e400]
    assert_equal 401 [string length $r]
    assert_equal hashtable [enc $c h]
    assert_equal 401 [r $c HSTRLEN h d]
}

test "Zero thresholds: every hash is a hashtable" {
    set zsrv [start_server -config {hash-max-listpack-entries 0}]
    set zc [client $zsrv]
    r $zc HSET h a 1
    assert_equal hashtable [enc $zc h]
    r $zc HINCRBY h2 a 1
    assert_equal hashtable [enc $zc h2]
    r $zc CONFIG SET hash-max-listpack-entries 10
    r $zc CONFIG SET hash-max-listpack-value 0
    r $zc HSET h3 "" ""
    assert_equal listpack [enc $zc h3]
    r $zc HSET h3 a ""
    assert_equal hashtable [enc $zc h3]
    close_client $zc
    stop_server $zsrv
}

test "All commands on both encodings" {
    foreach {n key} {3 small 600 large} {
        fill_hash $c $key $n
        assert_equal $n [r $c HLEN $key]
        assert_equal v1 [r $c HGET $key f1]
        assert_equal {v0 {} v2} [r $c HMGET $key f0 nope f2]
        assert_equal 1 [r $c HEXISTS $key f2]
        assert_equal 2 [r $c HSTRLEN $key f2]
        assert_equal 0 [r $c HSETNX $key f1 x]
        assert_equal 1 [r $c HSETNX $key new x]
        assert_equal 7 [r $c HINCRBY $key num 7]
        assert_equal 7.5 [r $c HINCRBYFLOAT $key num 0.5]
        assert_error "ERR hash value is not an integer" {r $c HINCRBY $key num 1}
        assert_error "ERR hash value is not an integer" {r $c HINCRBY $key f1 1}
        assert_error "ERR hash value is not a float" {r $c HINCRBYFLOAT $key f1 1}
        assert_equal 2 [r $c HDEL $key new num gone]
        assert_equal $n [r $c HLEN $key]
        assert_equal $n [llength [r $c HKEYS $key]]
    }
    assert_equal listpack [enc $c small]
    assert_equal hashtable [enc $c large]
}

test "COPY duplicates a hash of either encoding" {
    foreach {n key} {3 csmall 600 clarge} {
        fill_hash $c $key $n
        r $c DEL $key:copy
        assert_equal 1 [r $c COPY $key $key:copy]
        assert_equal [enc $c $key] [enc $c $key:copy]
        assert_equal [sorted_pairs $c $key] [sorted_pairs $c $key:copy]
        r $c HSET $key:copy f0 changed
        assert_equal v0 [r $c HGET $key f0]
        r $c DEL $key
        assert_equal $n [r $c HLEN $key:copy]
        assert {[r $c MEMORY USAGE $key:copy] > 0}
    }
}

# ---------------------------------------------------------------------------
# HRANDFIELD
# ---------------------------------------------------------------------------

test "HRANDFIELD on a missing key" {
    r $c DEL h
    assert_equal "\$-1\r\n" [rraw $c HRANDFIELD h]
    assert_equal "*0\r\n" [rraw $c HRANDFIELD h 5]
    assert_equal "*0\r\n" [rraw $c HRANDFIELD h -5 WITHVALUES]
    assert_equal "*0\r\n" [rraw $c HRANDFIELD h 0]
}

test "HRANDFIELD argument errors" {
    r $c DEL h
    r $c HSET h a 1
    assert_error "ERR value is not an integer or out of range" {r $c HRANDFIELD h abc}
    assert_error "ERR value is not an integer or out of range" {r $c HRANDFIELD h 1.5}
    assert_error "ERR value is not an integer or out of range" {r $c HRANDFIELD h 9223372036854775808}
    assert_error "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807" \
        {r $c HRANDFIELD h -9223372036854775808}
    assert_error "ERR value is out of range" {r $c HRANDFIELD h -9223372036854775807 WITHVALUES}
    assert_error "ERR value is out of range" {r $c HRANDFIELD h 4611686018427387904 WITHVALUES}
    assert_error "ERR syntax error" {r $c HRANDFIELD h 1 WITHVALUE}
    assert_error "ERR syntax error" {r $c HRANDFIELD h 1 WITHVALUES x}
    # The count is checked before the key: errors even for a missing key.
    assert_error "ERR value is not an integer or out of range" {r $c HRANDFIELD nokey abc}
    assert_error "ERR syntax error" {r $c HRANDFIELD nokey 1 foo}
    assert_equal "*0\r\n" [rraw $c HRANDFIELD h 0 withvalues]
}

foreach {n enc} {5 listpack 600 hashtable} {
    test "HRANDFIELD with counts ($enc)" {
        fill_hash $c h $n
        assert_equal $enc [enc $c h]
        set all [lsort [r $c HKEYS h]]
        # No count: one field.
        for {set i 0} {$i < 20} {incr i} {
            assert {[lsearch -exact $all [r $c HRANDFIELD h]] >= 0}
        }
        # Positive counts: distinct fields, at most the hash size.
        foreach count [list 1 2 3 [expr {$n - 1}] $n [expr {$n + 1}] 1000] {
            set got [r $c HRANDFIELD h $count]
            set want [expr {$count < $n ? $count : $n}]
            assert_equal $want [llength $got] "count $count"
            assert_equal $want [llength [lsort -unique $got]] "distinct for count $count"
            foreach f $got { assert {[lsearch -exact $all $f] >= 0} }
        }
        # A count covering the hash returns all of it.
        assert_equal $all [lsort [r $c HRANDFIELD h [expr {$n + 5}]]]
        # Negative counts: exactly that many, duplicates allowed.
        set got [r $c HRANDFIELD h -1000]
        assert_equal 1000 [llength $got]
        assert {[llength [lsort -unique $got]] < 1000}
        foreach f $got { assert {[lsearch -exact $all $f] >= 0} }
        assert_equal 1 [llength [r $c HRANDFIELD h -1]]
    }

    test "HRANDFIELD WITHVALUES pairs fields with their values ($enc)" {
        fill_hash $c h $n
        foreach count [list 1 3 -3 -20 [expr {$n + 2}]] {
            set got [r $c HRANDFIELD h $count WITHVALUES]
            set want [expr {$count < 0 ? -$count : ($count < $n ? $count : $n)}]
            assert_equal [expr {$want * 2}] [llength $got]
            foreach {f v} $got { assert_equal "v[string range $f 1 end]" $v }
        }
    }
}

test "HRANDFIELD returns every field eventually" {
    fill_hash $c h 5
    set seen {}
    for {set i 0} {$i < 200} {incr i} { dict set seen [r $c HRANDFIELD h] 1 }
    assert_equal {f0 f1 f2 f3 f4} [lsort [dict keys $seen]]
    set seen {}
    for {set i 0} {$i < 100} {incr i} {
        foreach f [r $c HRANDFIELD h 2] { dict set seen $f 1 }
    }
    assert_equal {f0 f1 f2 f3 f4} [lsort [dict keys $seen]]
}

test "HRANDFIELD in RESP3: null and nested pairs" {
    set c3 [client $srv -resp 3]
    r $c3 DEL h3
    assert_equal "_\r\n" [rraw $c3 HRANDFIELD h3]
    assert_equal "*0\r\n" [rraw $c3 HRANDFIELD h3 2 WITHVALUES]
    r $c3 HSET h3 a 1 b 2
    assert_equal "*2\r\n*2\r\n\$1\r\na\r\n\$1\r\n1\r\n*2\r\n\$1\r\nb\r\n\$1\r\n2\r\n" \
        [rraw $c3 HRANDFIELD h3 2 WITHVALUES]
    assert_match "\\*1\r\n\\*2\r\n*" [rraw $c3 HRANDFIELD h3 -1 WITHVALUES]
    assert_equal "*2\r\n\$1\r\na\r\n\$1\r\nb\r\n" [rraw $c3 HRANDFIELD h3 5]
    fill_hash $c3 h3 600
    set got [r $c3 HRANDFIELD h3 -4 WITHVALUES]
    assert_equal 4 [llength $got]
    foreach pair $got {
        assert_equal 2 [llength $pair]
        assert_equal "v[string range [lindex $pair 0] 1 end]" [lindex $pair 1]
    }
    close_client $c3
}

test "HGETALL in RESP3 is a map" {
    set c3 [client $srv -resp 3]
    r $c3 DEL h3
    assert_equal "%0\r\n" [rraw $c3 HGETALL h3]
    assert_equal "*0\r\n" [rraw $c3 HKEYS h3]
    assert_equal "_\r\n" [rraw $c3 HGET h3 a]
    r $c3 HSET h3 a 1 b x
    assert_equal "%2\r\n\$1\r\na\r\n\$1\r\n1\r\n\$1\r\nb\r\n\$1\r\nx\r\n" [rraw $c3 HGETALL h3]
    assert_equal "*2\r\n\$1\r\n1\r\n\$1\r\nx\r\n" [rraw $c3 HVALS h3]
    assert_equal "*2\r\n\$1\r\n0\r\n*4\r\n\$1\r\na\r\n\$1\r\n1\r\n\$1\r\nb\r\n\$1\r\nx\r\n" \
        [rraw $c3 HSCAN h3 0]
    close_client $c3
}

# ---------------------------------------------------------------------------
# HSCAN
# ---------------------------------------------------------------------------

test "HSCAN of a listpack hash returns everything with cursor 0" {
    r $c DEL h
    r $c HSET h a 1 b 2 c 3 ab 4
    assert_equal {0 {a 1 b 2 c 3 ab 4}} [r $c HSCAN h 0]
    assert_equal {0 {a 1 b 2 c 3 ab 4}} [r $c HSCAN h 0 COUNT 1]
    assert_equal {0 {a 1 b 2 c 3 ab 4}} [r $c HSCAN h 12345]
    assert_equal {0 {a 1 ab 4}} [r $c HSCAN h 0 MATCH a*]
    assert_equal {0 {}} [r $c HSCAN h 0 MATCH zz*]
    assert_equal {0 {b 2}} [r $c hscan h 0 match b count 100]
    r $c HSET h 12 x -5 y
    assert_equal {0 {12 x}} [r $c HSCAN h 0 MATCH 1*]
    assert_equal {0 {-5 y}} [r $c HSCAN h 0 MATCH -?]
}

test "HSCAN of a hashtable hash visits every field" {
    fill_hash $c h 1000
    assert_equal hashtable [enc $c h]
    set cursor 0
    set got {}
    set rounds 0
    while 1 {
        lassign [r $c HSCAN h $cursor COUNT 20] cursor items
        foreach {f v} $items {
            assert_equal "v[string range $f 1 end]" $v
            dict set got $f 1
        }
        incr rounds
        if {$cursor == 0} break
    }
    assert_equal 1000 [dict size $got]
    assert {$rounds > 5}
}

test "HSCAN MATCH on a hashtable hash" {
    fill_hash $c h 1000
    set cursor 0
    set got {}
    while 1 {
        lassign [r $c HSCAN h $cursor MATCH f1?? COUNT 100] cursor items
        foreach {f v} $items { lappend got $f }
        if {$cursor == 0} break
    }
    assert_equal 100 [llength [lsort -unique $got]]
    foreach f $got { assert_match f1?? $f }
}

test "HSCAN errors and the missing key" {
    r $c DEL h
    assert_equal "*2\r\n\$1\r\n0\r\n*0\r\n" [rraw $c HSCAN h 0]
    # Options of a missing key are not even parsed.
    assert_equal "*2\r\n\$1\r\n0\r\n*0\r\n" [rraw $c HSCAN h 0 BADOPT]
    assert_error "ERR invalid cursor" {r $c HSCAN h abc}
    assert_error "ERR invalid cursor" {r $c HSCAN h 18446744073709551616}
    assert_error "ERR invalid cursor" {r $c HSCAN h " 1"}
    r $c HSET h a 1
    assert_error "ERR invalid cursor" {r $c HSCAN h 1x}
    assert_error "ERR syntax error" {r $c HSCAN h 0 COUNT 0}
    assert_error "ERR syntax error" {r $c HSCAN h 0 COUNT -1}
    assert_error "ERR value is not an integer or out of range" {r $c HSCAN h 0 COUNT abc}
    assert_error "ERR syntax error" {r $c HSCAN h 0 TYPE string}
    assert_error "ERR syntax error" {r $c HSCAN h 0 MATCH}
    assert_error "ERR syntax error" {r $c HSCAN h 0 FOO bar}
}

# ---------------------------------------------------------------------------
# WRONGTYPE and arity
# ---------------------------------------------------------------------------

test "Hash commands against a string key" {
    r $c SET str v
    set wt "WRONGTYPE Operation against a key holding the wrong kind of value"
    foreach cmd {
        {HSET str a 1} {HMSET str a 1} {HSETNX str a 1} {HGET str a} {HMGET str a}
        {HDEL str a} {HLEN str} {HSTRLEN str a} {HEXISTS str a} {HKEYS str}
        {HVALS str} {HGETALL str} {HINCRBY str a 1} {HINCRBYFLOAT str a 1}
        {HRANDFIELD str} {HRANDFIELD str 2} {HRANDFIELD str -2 WITHVALUES}
        {HRANDFIELD str 0} {HSCAN str 0}
    } {
        assert_error $wt {r $c {*}$cmd}
    }
    assert_equal v [r $c GET str]
    # Argument errors come first where Redis parses them first.
    assert_error "ERR value is not an integer or out of range" {r $c HINCRBY str a x}
    assert_error "ERR value is not a valid float" {r $c HINCRBYFLOAT str a x}
    assert_error "ERR invalid cursor" {r $c HSCAN str x}
    assert_error "ERR wrong number of arguments for 'hset' command" {r $c HSET str a 1 b}
    r $c HSET h a 1
    assert_error $wt {r $c GET h}
    assert_error $wt {r $c INCR h}
    assert_equal hash [r $c TYPE h]
}

test "Hash commands arity" {
    foreach {cmd argc} {
        hset 3 hsetnx 3 hsetnx 5 hget 2 hget 4 hmget 2 hmset 3 hdel 2 hlen 1 hlen 3
        hstrlen 2 hexists 2 hkeys 1 hkeys 3 hvals 3 hgetall 1 hincrby 3 hincrby 5
        hincrbyfloat 3 hrandfield 1 hscan 2
    } {
        set argv [list [string toupper $cmd]]
        for {set i 1} {$i < $argc} {incr i} { lappend argv x }
        assert_error "ERR wrong number of arguments for '$cmd' command" {r $c {*}$argv}
    }
}

# ---------------------------------------------------------------------------
# Keyspace notifications and WATCH
# ---------------------------------------------------------------------------

test "Keyspace notifications: hset hincrby hincrbyfloat hdel del, none for no-ops" {
    r $c SELECT 0
    r $c DEL nh
    r $c CONFIG SET notify-keyspace-events Ehg
    set s [client $srv]
    send_cmd $s PSUBSCRIBE __keyevent@0__:*
    read_reply $s
    set err [catch {
        r $c HSET nh a 1 b 2
        r $c HMSET nh c 3
        r $c HSETNX nh a 9
        r $c HSETNX nh d 4
        r $c HDEL nh nofield
        r $c HINCRBY nh n 1
        r $c HINCRBYFLOAT nh f 1.5
        catch {r $c HINCRBY nh a x}
        r $c HDEL nh a
        r $c HDEL nh b c d n f
        set got {}
        for {set i 0} {$i < 8} {incr i} { lappend got [lrange [read_reply $s] 2 3] }
        set want {}
        foreach e {hset hset hset hincrby hincrbyfloat hdel hdel del} {
            lappend want [list __keyevent@0__:$e nh]
        }
        assert_equal $want $got
    } msg opts]
    r $c CONFIG SET notify-keyspace-events ""
    close_client $s
    if {$err} { return -options $opts $msg }
}

test "WATCH: hash writes abort EXEC, no-op writes do not" {
    set w [client $srv]
    r $c DEL wh
    r $c HSET wh a 1
    foreach {cmd aborts} {
        {HSET wh a 2} 1 {HSET wh a 2} 1 {HSETNX wh a 3} 0 {HSETNX wh b 3} 1 {HDEL wh nofield} 0
        {HDEL wh b} 1 {HINCRBY wh n 1} 1 {HINCRBYFLOAT wh n 1} 1 {HGET wh a} 0 {HGETALL wh} 0
    } {
        r $w WATCH wh
        r $c {*}$cmd
        r $w MULTI
        r $w PING
        if {$aborts} {
            assert_equal "*-1\r\n" [rraw $w EXEC] "EXEC after $cmd"
        } else {
            assert_equal {PONG} [r $w EXEC] "EXEC after $cmd"
        }
    }
    close_client $w
}

# ---------------------------------------------------------------------------
# cairn-only: single lookup and propagation
# ---------------------------------------------------------------------------

test "single lookup: HSET HSETNX HINCRBY HINCRBYFLOAT search the keyspace once" {
    if {[catch {r $c DEBUG LOOKUPS}]} { skip_test "server has no DEBUG LOOKUPS (not cairn)" }
    r $c DEL lk lk2 lk3
    foreach cmd {
        {HSET lk a 1} {HSET lk a 2 b 3} {HSETNX lk c 1} {HSETNX lk c 2} {HINCRBY lk n 1}
        {HINCRBY lk n 5} {HINCRBYFLOAT lk f 1.5} {HINCRBYFLOAT lk f 1} {HMSET lk x y}
        {HINCRBY lk2 n 1} {HINCRBYFLOAT lk3 f 1}
    } {
        r $c DEBUG LOOKUPS RESET
        r $c {*}$cmd
        assert_equal 1 [r $c DEBUG LOOKUPS] "lookups for $cmd"
    }
}

test "propagation: HINCRBYFLOAT as HSET with the result; no-ops are not propagated" {
    if {[catch {r $c DEBUG PROPAGATED}]} { skip_test "server has no DEBUG PROPAGATED (not cairn)" }
    r $c SELECT 0
    r $c DEL p
    r $c DEBUG PROPAGATED
    r $c HINCRBYFLOAT p f 1.5
    r $c HINCRBYFLOAT p f 0.25
    r $c HSETNX p f 1
    r $c HDEL p nofield
    r $c HINCRBY p g 3
    catch {r $c HINCRBY p f 1}
    r $c HDEL p f g
    set got [r $c DEBUG PROPAGATED]
    assert_equal "[resp HSET p f 1.5][resp HSET p f 1.75][resp HINCRBY p g 3][resp HDEL p f g]" $got
}

finish
