# bitops.tcl -- the bitmap commands: SETBIT GETBIT BITCOUNT BITPOS BITOP
# BITFIELD BITFIELD_RO, their ranges, overflow modes and error texts; when
# changes count (dirty / propagation); a random comparison with the
# reference server; and (cairn only) single-lookup writes.

source [file join [file dirname [info script]] .. helpers harness.tcl]

set srv [start_server]
set c [client $srv]
r $c FLUSHALL

proc make_list {key} {
    r $::c DEL $key
    r $::c RPUSH $key a b
}

proc dirty {} { info_field $::c rdb_changes_since_last_save }

# A Tcl string of bytes from a list of byte values.
proc bytes {args} {
    set s ""
    foreach b $args { append s [format %c $b] }
    return $s
}

# ---------------------------------------------------------------------------
# SETBIT / GETBIT
# ---------------------------------------------------------------------------

test "SETBIT returns the old bit and grows the string with zero bytes" {
    r $c DEL b:k
    assert_equal 0 [r $c SETBIT b:k 7 1]
    assert_equal [bytes 1] [r $c GET b:k]
    assert_equal 1 [r $c SETBIT b:k 7 1]
    assert_equal 1 [r $c SETBIT b:k 7 0]
    assert_equal 0 [r $c SETBIT b:k 17 1]
    assert_equal [bytes 0 0 64] [r $c GET b:k]
    assert_equal 3 [r $c STRLEN b:k]
}

test "GETBIT: set bits, bits past the end, missing keys" {
    r $c SET b:g "\x80\x01"
    assert_equal 1 [r $c GETBIT b:g 0]
    assert_equal 0 [r $c GETBIT b:g 1]
    assert_equal 1 [r $c GETBIT b:g 15]
    assert_equal 0 [r $c GETBIT b:g 16]
    assert_equal 0 [r $c GETBIT b:g 4294967295]
    assert_equal 0 [r $c GETBIT b:nokey 3]
    assert_equal 0 [r $c EXISTS b:nokey]
}

test "GETBIT and SETBIT on an integer-encoded string" {
    r $c SET b:n 12345
    assert_equal int [r $c OBJECT ENCODING b:n]
    # "1" is 0x31: bits 2, 3 and 7 are set.
    assert_equal 1 [r $c GETBIT b:n 2]
    assert_equal 0 [r $c GETBIT b:n 4]
    assert_equal 1 [r $c GETBIT b:n 7]
    assert_equal 0 [r $c SETBIT b:n 6 1]
    assert_equal raw [r $c OBJECT ENCODING b:n]
    assert_equal 32345 [r $c GET b:n]
}

test "SETBIT and GETBIT offset and value errors" {
    set offerr "ERR bit offset is not an integer or out of range"
    set biterr "ERR bit is not an integer or out of range"
    assert_error $offerr {r $c SETBIT b:e -1 1}
    assert_error $offerr {r $c SETBIT b:e 4294967296 1}
    assert_error $offerr {r $c SETBIT b:e abc 1}
    assert_error $offerr {r $c SETBIT b:e 1.5 1}
    assert_error $offerr {r $c SETBIT b:e " 1" 1}
    assert_error $offerr {r $c GETBIT b:e -1}
    assert_error $offerr {r $c GETBIT b:e 4294967296}
    assert_error $biterr {r $c SETBIT b:e 1 2}
    assert_error $biterr {r $c SETBIT b:e 1 -1}
    assert_error $biterr {r $c SETBIT b:e 1 abc}
    assert_error $biterr {r $c SETBIT b:e 1 ""}
    # The offset is checked first.
    assert_error $offerr {r $c SETBIT b:e -1 2}
    assert_equal 0 [r $c EXISTS b:e]
    assert_error "ERR wrong number of arguments for 'setbit' command" {r $c SETBIT b:e 1}
    assert_error "ERR wrong number of arguments for 'getbit' command" {r $c GETBIT b:e}
}

test "the bit offset limit follows proto-max-bulk-len" {
    r $c CONFIG SET proto-max-bulk-len 1mb
    catch {
        assert_error "ERR bit offset is not an integer or out of range" {r $c SETBIT b:big 8388608 1}
        assert_equal 0 [r $c SETBIT b:big 8388607 1]
        assert_equal 1048576 [r $c STRLEN b:big]
        assert_equal 1 [r $c BITCOUNT b:big]
        assert_equal 8388607 [r $c BITPOS b:big 1]
    } err
    r $c CONFIG SET proto-max-bulk-len 512mb
    r $c DEL b:big
    if {$err ne ""} { error $err }
}

test "SETBIT against another type" -tags needs-lists {
    make_list b:list
    assert_error "WRONGTYPE*" {r $c SETBIT b:list 0 1}
    assert_error "WRONGTYPE*" {r $c GETBIT b:list 0}
    assert_error "WRONGTYPE*" {r $c BITCOUNT b:list}
    assert_error "WRONGTYPE*" {r $c BITPOS b:list 1}
    assert_error "WRONGTYPE*" {r $c BITOP AND b:dest b:list}
    assert_error "WRONGTYPE*" {r $c BITFIELD b:list GET u8 0}
    assert_error "WRONGTYPE*" {r $c BITFIELD_RO b:list GET u8 0}
    assert_error "WRONGTYPE*" {r $c BITFIELD b:list SET u8 0 1}
}

test "SETBIT counts a change only when a bit changes or the string grows" {
    r $c DEL b:d
    set d0 [dirty]
    r $c SETBIT b:d 3 0
    assert_equal [expr {$d0 + 1}] [dirty] "new key"
    r $c SETBIT b:d 3 0
    assert_equal [expr {$d0 + 1}] [dirty] "same bit"
    r $c SETBIT b:d 3 1
    assert_equal [expr {$d0 + 2}] [dirty] "bit changed"
    r $c SETBIT b:d 100 0
    assert_equal [expr {$d0 + 3}] [dirty] "grown"
    assert_equal 13 [r $c STRLEN b:d]
}

# ---------------------------------------------------------------------------
# BITCOUNT
# ---------------------------------------------------------------------------

test "BITCOUNT of whole strings" {
    r $c SET b:c foobar
    assert_equal 26 [r $c BITCOUNT b:c]
    r $c SET b:c ""
    assert_equal 0 [r $c BITCOUNT b:c]
    r $c SET b:c [string repeat "\xff" 1000]
    assert_equal 8000 [r $c BITCOUNT b:c]
    r $c SET b:c 12345
    assert_equal 17 [r $c BITCOUNT b:c]
    assert_equal 0 [r $c BITCOUNT b:nokey]
}

test "BITCOUNT with byte ranges" {
    r $c SET b:c foobar
    assert_equal 4 [r $c BITCOUNT b:c 0 0]
    assert_equal 6 [r $c BITCOUNT b:c 1 1]
    assert_equal 10 [r $c BITCOUNT b:c 0 1 BYTE]
    assert_equal 26 [r $c BITCOUNT b:c 0 -1]
    assert_equal 26 [r $c BITCOUNT b:c -100 100]
    assert_equal 4 [r $c BITCOUNT b:c -1 -1]
    assert_equal 0 [r $c BITCOUNT b:c 3 2]
    assert_equal 0 [r $c BITCOUNT b:c 6 10]
    assert_equal 0 [r $c BITCOUNT b:c -1 -2]
}

test "BITCOUNT with bit ranges" {
    r $c SET b:c foobar
    assert_equal 17 [r $c BITCOUNT b:c 5 30 BIT]
    assert_equal 17 [r $c BITCOUNT b:c 5 30 bit] "lower case"
    assert_equal 26 [r $c BITCOUNT b:c 0 -1 BIT]
    assert_equal 1 [r $c BITCOUNT b:c 1 1 BIT]
    assert_equal 0 [r $c BITCOUNT b:c 0 0 BIT]
    assert_equal 4 [r $c BITCOUNT b:c -8 -1 BIT]
    assert_equal 0 [r $c BITCOUNT b:c 47 100 BIT]
}

test "BITCOUNT argument errors and their order" {
    r $c SET b:c foobar
    assert_error "ERR syntax error" {r $c BITCOUNT b:c 1}
    assert_error "ERR syntax error" {r $c BITCOUNT b:c 0 1 FOO}
    assert_error "ERR syntax error" {r $c BITCOUNT b:c 0 1 BIT x}
    assert_error "ERR value is not an integer or out of range" {r $c BITCOUNT b:c a 1}
    assert_error "ERR value is not an integer or out of range" {r $c BITCOUNT b:c 0 1.5}
    # Both negative and reversed: 0 before the unit is looked at.
    assert_equal 0 [r $c BITCOUNT b:c -1 -2 FOO]
    # A missing key answers 0 whatever the arguments (Redis 7.0).
    assert_equal 0 [r $c BITCOUNT b:nokey a b]
    assert_equal 0 [r $c BITCOUNT b:nokey 1]
}

# ---------------------------------------------------------------------------
# BITPOS
# ---------------------------------------------------------------------------

test "BITPOS finds the first set or clear bit" {
    r $c SET b:p "\xff\xf0\x00"
    assert_equal 12 [r $c BITPOS b:p 0]
    assert_equal 0 [r $c BITPOS b:p 1]
    r $c SET b:p "\x00\x00\x01"
    assert_equal 23 [r $c BITPOS b:p 1]
    assert_equal 0 [r $c BITPOS b:p 0]
    r $c SET b:p 12345
    assert_equal 2 [r $c BITPOS b:p 1]
    assert_equal 0 [r $c BITPOS b:p 0]
}

test "BITPOS on a missing key: zeros forever" {
    assert_equal 0 [r $c BITPOS b:nokey 0]
    assert_equal -1 [r $c BITPOS b:nokey 1]
    assert_equal -1 [r $c BITPOS b:nokey 1 abc]
}

test "BITPOS looking for 0 in all ones: past the end unless an end is given" {
    r $c SET b:p "\xff\xff\xff"
    assert_equal 24 [r $c BITPOS b:p 0]
    assert_equal 24 [r $c BITPOS b:p 0 1]
    assert_equal -1 [r $c BITPOS b:p 0 0 -1]
    assert_equal -1 [r $c BITPOS b:p 0 0 -1 BIT]
    assert_equal -1 [r $c BITPOS b:p 1 5]
    r $c SET b:p ""
    assert_equal -1 [r $c BITPOS b:p 0]
    assert_equal -1 [r $c BITPOS b:p 1]
}

test "BITPOS with byte and bit ranges" {
    r $c SET b:p "\x00\xff\x00\xf0"
    assert_equal 8 [r $c BITPOS b:p 1 1]
    assert_equal 24 [r $c BITPOS b:p 1 2]
    assert_equal 24 [r $c BITPOS b:p 1 -1]
    assert_equal 16 [r $c BITPOS b:p 0 1]
    assert_equal -1 [r $c BITPOS b:p 1 2 2]
    assert_equal 10 [r $c BITPOS b:p 1 10 20 BIT]
    assert_equal 16 [r $c BITPOS b:p 0 10 20 BIT]
    assert_equal -1 [r $c BITPOS b:p 0 9 15 bit]
    assert_equal 28 [r $c BITPOS b:p 0 25 -1 BIT]
    assert_equal -1 [r $c BITPOS b:p 1 28 -1 BIT]
    assert_equal 31 [r $c BITPOS b:p 0 31 31 BIT]
    assert_equal 8 [r $c BITPOS b:p 1 0 -1 BYTE]
    assert_equal -1 [r $c BITPOS b:p 1 3 1]
}

test "BITPOS argument errors and their order" {
    r $c SET b:p "\x00\xff"
    assert_error "ERR The bit argument must be 1 or 0." {r $c BITPOS b:p 2}
    assert_error "ERR The bit argument must be 1 or 0." {r $c BITPOS b:nokey -1}
    assert_error "ERR value is not an integer or out of range" {r $c BITPOS b:p x}
    assert_error "ERR value is not an integer or out of range" {r $c BITPOS b:p 1 a}
    assert_error "ERR value is not an integer or out of range" {r $c BITPOS b:p 1 0 a BIT}
    assert_error "ERR syntax error" {r $c BITPOS b:p 1 0 1 FOO}
    assert_error "ERR syntax error" {r $c BITPOS b:p 1 0 a FOO}
    assert_error "ERR syntax error" {r $c BITPOS b:p 1 0 1 BIT x}
}

# ---------------------------------------------------------------------------
# BITOP
# ---------------------------------------------------------------------------

test "BITOP AND OR XOR NOT" {
    r $c SET b:x "\xf0\x0f\xaa"
    r $c SET b:y "\xff\x00"
    assert_equal 3 [r $c BITOP AND b:r b:x b:y]
    assert_equal [bytes 0xf0 0 0] [r $c GET b:r]
    assert_equal 3 [r $c BITOP OR b:r b:x b:y]
    assert_equal [bytes 0xff 0x0f 0xaa] [r $c GET b:r]
    assert_equal 3 [r $c BITOP XOR b:r b:x b:y]
    assert_equal [bytes 0x0f 0x0f 0xaa] [r $c GET b:r]
    assert_equal 3 [r $c BITOP NOT b:r b:x]
    assert_equal [bytes 0x0f 0xf0 0x55] [r $c GET b:r]
    assert_equal 3 [r $c bitop xor b:r b:x b:x b:y b:y]
    assert_equal [bytes 0 0 0] [r $c GET b:r]
}

test "BITOP over long strings (the word-at-a-time path)" {
    set a ""
    set b ""
    for {set i 0} {$i < 100} {incr i} {
        append a [format %c [expr {($i * 37) & 255}]]
        append b [format %c [expr {($i * 91 + 7) & 255}]]
    }
    r $c SET b:la $a
    r $c SET b:lb [string range $b 0 60]
    r $c BITOP AND b:lr b:la b:lb
    set want ""
    for {set i 0} {$i < 100} {incr i} {
        set x [expr {($i * 37) & 255}]
        set y [expr {$i <= 60 ? (($i * 91 + 7) & 255) : 0}]
        append want [format %c [expr {$x & $y}]]
    }
    assert_equal $want [r $c GET b:lr]
}

test "BITOP with missing sources, integer sources, and the destination as a source" {
    r $c DEL b:none b:none2
    r $c SET b:x "\x0f"
    assert_equal 1 [r $c BITOP OR b:r b:none b:x]
    assert_equal [bytes 0x0f] [r $c GET b:r]
    assert_equal 1 [r $c BITOP AND b:r b:none b:x]
    assert_equal [bytes 0] [r $c GET b:r]
    r $c SET b:i 5
    assert_equal 1 [r $c BITOP NOT b:r b:i]
    assert_equal [bytes 0xca] [r $c GET b:r]
    r $c SET b:self "\x01"
    assert_equal 1 [r $c BITOP XOR b:self b:self b:x]
    assert_equal [bytes 0x0e] [r $c GET b:self]
}

test "BITOP stores a raw string without TTL, deletes the target on an empty result" {
    r $c SET b:x abc
    r $c SET b:r old EX 100
    assert_equal 3 [r $c BITOP AND b:r b:x b:x]
    assert_equal abc [r $c GET b:r]
    assert_equal raw [r $c OBJECT ENCODING b:r]
    assert_equal -1 [r $c TTL b:r]
    set d0 [dirty]
    assert_equal 0 [r $c BITOP OR b:r b:none b:none2]
    assert_equal 0 [r $c EXISTS b:r]
    assert_equal [expr {$d0 + 1}] [dirty]
    assert_equal 0 [r $c BITOP OR b:r b:none]
    assert_equal [expr {$d0 + 1}] [dirty] "nothing deleted, no change"
}

test "BITOP errors" {
    assert_error "ERR syntax error" {r $c BITOP FOO b:r b:x}
    assert_error "ERR syntax error" {r $c BITOP ANDX b:r b:x}
    assert_error "ERR BITOP NOT must be called with a single source key." {r $c BITOP NOT b:r b:x b:y}
    assert_error "ERR wrong number of arguments for 'bitop' command" {r $c BITOP AND b:r}
}

# ---------------------------------------------------------------------------
# BITFIELD
# ---------------------------------------------------------------------------

test "BITFIELD GET and SET, signed and unsigned" {
    r $c DEL b:f
    assert_equal {0 255} [r $c BITFIELD b:f SET u8 0 255 GET u8 0]
    assert_equal {255 -1 15} [r $c BITFIELD b:f GET u8 0 GET i8 0 GET u4 4]
    assert_equal {-1 100} [r $c BITFIELD b:f SET i8 0 100 GET i8 0]
    assert_equal {0 -6} [r $c BITFIELD b:f SET i4 9 10 GET i4 9]
    assert_equal 2 [r $c STRLEN b:f]
}

test "BITFIELD #N offsets count in fields of the type width" {
    r $c DEL b:f
    r $c BITFIELD b:f SET u8 #0 1 SET u8 #1 2 SET u8 #2 3
    assert_equal [bytes 1 2 3] [r $c GET b:f]
    assert_equal {2 3} [r $c BITFIELD b:f GET u8 #1 GET u4 #5]
    # The product wraps in 64 bits: #2305843009213693953 * 8 == 8 (mod 2^64).
    assert_equal {2} [r $c BITFIELD b:f GET u8 #2305843009213693953]
    assert_error "ERR bit offset is not an integer or out of range" {r $c BITFIELD b:f GET u8 #1152921504606846976}
    assert_error "ERR bit offset is not an integer or out of range" {r $c BITFIELD b:f GET u8 #-1}
    assert_error "ERR bit offset is not an integer or out of range" {r $c BITFIELD b:f GET u8 #}
    assert_error "ERR bit offset is not an integer or out of range" {r $c BITFIELD b:f GET u8 -1}
}

test "BITFIELD reads past the end and of missing keys as zero, integers as text" {
    r $c SET b:f "\xff"
    assert_equal {127 0 -72057594037927936} [r $c BITFIELD b:f GET u7 1 GET u8 8 GET i64 0]
    assert_equal {0} [r $c BITFIELD b:nokey GET i64 1000]
    assert_equal 0 [r $c EXISTS b:nokey]
    r $c SET b:n 12
    assert_equal {12594} [r $c BITFIELD b:n GET u16 0]
    assert_equal int [r $c OBJECT ENCODING b:n]
}

test "BITFIELD INCRBY with WRAP (the default), SAT and FAIL" {
    r $c DEL b:f
    assert_equal {1 2 0 1} [r $c BITFIELD b:f INCRBY u2 0 1 INCRBY u2 0 1 INCRBY u2 0 2 INCRBY u2 0 5]
    assert_equal {3 3} [r $c BITFIELD b:f OVERFLOW SAT INCRBY u2 0 10 INCRBY u2 0 1]
    assert_equal {0} [r $c BITFIELD b:f OVERFLOW SAT INCRBY u2 0 -10]
    assert_equal {{} 3} [r $c BITFIELD b:f OVERFLOW FAIL INCRBY u2 0 4 INCRBY u2 0 3]
    assert_equal "*1\r\n\$-1\r\n" [rraw $c BITFIELD b:f OVERFLOW FAIL INCRBY u2 0 1]
    assert_equal {0 -128 -128 -128} [r $c BITFIELD b:f SET i8 8 127 INCRBY i8 8 1 OVERFLOW SAT SET i8 8 1000 INCRBY i8 8 -1000]
    assert_equal {-1} [r $c BITFIELD b:f OVERFLOW WRAP INCRBY i8 8 127]
}

test "BITFIELD overflow of SET values" {
    r $c DEL b:f
    assert_equal {0 255} [r $c BITFIELD b:f OVERFLOW SAT SET u8 0 1000 GET u8 0]
    # A negative value for an unsigned field overflows upwards.
    assert_equal {255 255} [r $c BITFIELD b:f OVERFLOW SAT SET u8 0 -1 GET u8 0]
    assert_equal {255 246} [r $c BITFIELD b:f OVERFLOW WRAP SET u8 0 -10 GET u8 0]
    assert_equal {{} 246} [r $c BITFIELD b:f OVERFLOW FAIL SET u8 0 256 GET u8 0]
    assert_equal {0 -8} [r $c BITFIELD b:f OVERFLOW SAT SET i4 8 -100 GET i4 8]
    assert_equal {-8 -4} [r $c BITFIELD b:f OVERFLOW WRAP SET i4 8 12 GET i4 8]
    # Redis compares max - value in 64 bits: a hugely negative SET saturates
    # to the maximum.
    assert_equal {-4 7} [r $c BITFIELD b:f OVERFLOW SAT SET i4 8 -9223372036854775808 GET i4 8]
}

test "BITFIELD 63 and 64 bit fields" {
    r $c DEL b:f
    assert_equal {0 9223372036854775807} [r $c BITFIELD b:f SET u63 0 9223372036854775807 GET u63 0]
    assert_equal {0} [r $c BITFIELD b:f INCRBY u63 0 1]
    assert_equal {0 -9223372036854775808} [r $c BITFIELD b:f SET i64 3 -9223372036854775808 GET i64 3]
    assert_equal {9223372036854775807} [r $c BITFIELD b:f INCRBY i64 3 -1]
    assert_equal {-9223372036854775808} [r $c BITFIELD b:f INCRBY i64 3 1]
    assert_equal {-9223372036854775808} [r $c BITFIELD b:f OVERFLOW SAT INCRBY i64 3 -1]
    assert_equal {-9223372036854775808} [r $c BITFIELD b:f OVERFLOW SAT INCRBY i64 3 -9223372036854775808]
    assert_equal {{}} [r $c BITFIELD b:f OVERFLOW FAIL INCRBY i64 3 -1]
}

test "BITFIELD type and syntax errors" {
    set typeerr "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is."
    foreach t {u64 i65 u0 i0 I8 U8 x8 u i u-1 u8x ""} {
        assert_error $typeerr {r $c BITFIELD b:f GET $t 0}
    }
    assert_error "ERR syntax error" {r $c BITFIELD b:f GET u8}
    assert_error "ERR syntax error" {r $c BITFIELD b:f SET u8 0}
    assert_error "ERR syntax error" {r $c BITFIELD b:f FOO}
    assert_error "ERR syntax error" {r $c BITFIELD b:f OVERFLOW}
    assert_error "ERR Invalid OVERFLOW type specified" {r $c BITFIELD b:f OVERFLOW FOO}
    assert_error "ERR value is not an integer or out of range" {r $c BITFIELD b:f INCRBY u8 0 abc}
    assert_error "ERR value is not an integer or out of range" {r $c BITFIELD b:f GET u8 0 SET u8 0 1.5}
    assert_error "ERR wrong number of arguments for 'bitfield' command" {r $c BITFIELD}
}

test "BITFIELD with no operations answers an empty array" {
    assert_equal "*0\r\n" [rraw $c BITFIELD b:f]
    assert_equal "*0\r\n" [rraw $c BITFIELD_RO b:nokey]
    assert_equal "*0\r\n" [rraw $c BITFIELD b:f OVERFLOW SAT]
    assert_equal 0 [r $c EXISTS b:nokey]
}

test "BITFIELD_RO allows only GET" {
    r $c SET b:f "\x10"
    assert_equal {16 1} [r $c BITFIELD_RO b:f GET u8 0 GET u1 3]
    assert_equal {} [r $c BITFIELD_RO b:f OVERFLOW SAT]
    assert_error "ERR BITFIELD_RO only supports the GET subcommand" {r $c BITFIELD_RO b:f SET u8 0 1}
    assert_error "ERR BITFIELD_RO only supports the GET subcommand" {r $c BITFIELD_RO b:f INCRBY u8 0 1 GET u8 0}
    # Parsing errors come first.
    assert_error "ERR syntax error" {r $c BITFIELD_RO b:f SET u8 0 1 FOO}
}

test "BITFIELD creates the key even when every write fails" {
    r $c DEL b:new
    assert_equal {{}} [r $c BITFIELD b:new OVERFLOW FAIL INCRBY u2 0 10]
    assert_equal [bytes 0] [r $c GET b:new]
    r $c SET b:i 1
    assert_equal {49 49} [r $c BITFIELD b:i GET u8 0 SET u8 0 49]
    assert_equal raw [r $c OBJECT ENCODING b:i]
}

test "BITFIELD counts one change per write that changes bits or grows the string" {
    r $c DEL b:x
    set d0 [dirty]
    r $c BITFIELD b:x SET u8 0 0 SET u8 0 0 GET u8 0
    assert_equal [expr {$d0 + 2}] [dirty] "new key: both writes count"
    r $c BITFIELD b:x SET u8 0 1 SET u8 0 1 SET u8 0 2
    assert_equal [expr {$d0 + 4}] [dirty]
    r $c BITFIELD b:x INCRBY u8 0 0
    assert_equal [expr {$d0 + 4}] [dirty]
    r $c BITFIELD b:x OVERFLOW FAIL SET u8 100 0 SET u8 200 1000
    assert_equal [expr {$d0 + 5}] [dirty] "grown by the second op, which failed"
    assert_equal 26 [r $c STRLEN b:x]
}

# ---------------------------------------------------------------------------
# Keyspace events, and their order relative to the reply
# ---------------------------------------------------------------------------

test "keyspace events of the bit commands, before or after the reply as in Redis" {
    r $c FLUSHALL
    check_events {
        {SETBIT e:a 3 1}                  {new setbit reply}
        {SETBIT e:a 3 1}                  {reply}
        {SETBIT e:a 3 0}                  {setbit reply}
        {GETBIT e:none 1}                 {keymiss reply}
        {GETBIT e:a 1}                    {reply}
        {BITCOUNT e:none}                 {keymiss reply}
        {BITPOS e:none 1}                 {keymiss reply}
        {BITOP OR e:d e:a e:none}         {keymiss new set reply}
        {BITOP OR e:d e:a}                {set reply}
        {BITOP OR e:d e:none}             {keymiss del reply}
        {BITFIELD e:f SET u8 0 1 GET u8 0} {new reply setbit}
        {BITFIELD e:f SET u8 0 1}         {reply}
        {BITFIELD e:f INCRBY u8 0 1}      {reply setbit}
        {BITFIELD e:none GET u8 0}        {keymiss reply}
        {BITFIELD_RO e:none GET u8 0}     {keymiss reply}
        {BITFIELD e:g OVERFLOW FAIL INCRBY u2 0 9} {new reply}
    }
}

# ---------------------------------------------------------------------------
# Random comparison with the reference server
# ---------------------------------------------------------------------------

set ::seed 12345
proc rnd {n} {
    set ::seed [expr {($::seed * 1103515245 + 12345) & 0x7fffffff}]
    return [expr {($::seed >> 4) % $n}]
}
proc rstring {} {
    set n [lindex {0 1 2 3 7 8 9 16 17 33 64 100} [rnd 12]]
    set s ""
    set kind [rnd 4]
    for {set i 0} {$i < $n} {incr i} {
        switch $kind {
            0 { append s [format %c [rnd 256]] }
            1 { append s "\xff" }
            2 { append s "\x00" }
            3 { append s [format %c [expr {[rnd 8] == 0 ? (1 << [rnd 8]) : 0}]] }
        }
    }
    return $s
}
proc rrange {} { lindex {0 1 -1 2 -2 5 -5 9 -9 17 -17 100 -100 1000 -1000 63 64 8 7} [rnd 19] }

proc random_bit_command {} {
    set k [lindex {r:a r:b r:c} [rnd 3]]
    switch [rnd 8] {
        0 { return [list SET $k [rstring]] }
        1 {
            set cmd [list BITCOUNT $k]
            if {[rnd 3]} { lappend cmd [rrange] [rrange] }
            if {[llength $cmd] > 2 && [rnd 2]} { lappend cmd [lindex {BIT BYTE bit} [rnd 3]] }
            return $cmd
        }
        2 - 3 {
            set cmd [list BITPOS $k [rnd 2]]
            set n [rnd 4]
            if {$n >= 1} { lappend cmd [rrange] }
            if {$n >= 2} { lappend cmd [rrange] }
            if {$n >= 3} { lappend cmd [lindex {BIT BYTE} [rnd 2]] }
            return $cmd
        }
        4 { return [list SETBIT $k [rnd 300] [rnd 2]] }
        5 {
            set cmd [list BITOP [lindex {AND OR XOR NOT} [rnd 4]] [lindex {r:a r:b r:c r:d} [rnd 4]]]
            set n [expr {[lindex $cmd 1] eq "NOT" ? 1 : 1 + [rnd 3]}]
            for {set i 0} {$i < $n} {incr i} { lappend cmd [lindex {r:a r:b r:c r:d r:e} [rnd 5]] }
            return $cmd
        }
        default {
            set cmd [list BITFIELD $k]
            for {set i 0} {$i < 1 + [rnd 4]} {incr i} {
                set op [lindex {GET SET INCRBY OVERFLOW} [rnd 4]]
                if {$op eq "OVERFLOW"} { lappend cmd OVERFLOW [lindex {WRAP SAT FAIL} [rnd 3]]; continue }
                set type [lindex {i u} [rnd 2]][lindex {1 2 3 7 8 9 16 31 32 33 62 63} [rnd 12]]
                set off [expr {[rnd 2] ? [rnd 150] : "#[rnd 10]"}]
                lappend cmd $op $type $off
                if {$op ne "GET"} {
                    lappend cmd [lindex {0 1 -1 100 -100 127 -128 255 256 9223372036854775807 -9223372036854775808 4611686018427387904} [rnd 12]]
                }
            }
            return $cmd
        }
    }
}

if {$::cairn(reference) eq ""} {
    skip "random bit commands match the reference server" "no reference server (CAIRN_REFERENCE)"
} else {
    set ref [start_server -binary $::cairn(reference)]
    set rc [client $ref]
    test "random bit commands match the reference server" {
        r $c SELECT 9
        r $c FLUSHDB
        for {set i 0} {$i < 3000} {incr i} {
            set cmd [random_bit_command]
            set a [rraw $c {*}$cmd]
            set b [rraw $rc {*}$cmd]
            assert_equal $b $a "command $i: $cmd"
        }
        foreach k {r:a r:b r:c r:d} {
            assert_equal [rraw $rc GET $k] [rraw $c GET $k] "final value of $k"
        }
        r $c SELECT 0
    }
    stop_server $ref
}

# ---------------------------------------------------------------------------
# cairn only: one keyspace lookup per write, and what gets propagated
# ---------------------------------------------------------------------------

if {[catch {r $c DEBUG LOOKUPS}]} {
    skip "bit writes search the keyspace once" "server has no DEBUG LOOKUPS (not cairn)"
    skip "a SETBIT that changes nothing is not propagated" "server has no DEBUG PROPAGATED (not cairn)"
} else {
    test "bit writes search the keyspace once" {
        r $c FLUSHALL
        foreach cmd {
            {SETBIT l:a 5 1} {SETBIT l:a 5 1} {SETBIT l:a 100 0} {SETBIT l:new 3 0}
            {BITFIELD l:a SET u8 0 7 INCRBY i5 3 2 GET u4 0} {BITFIELD l:b INCRBY u8 #3 1}
            {BITOP OR l:dest l:a}
        } {
            r $c DEBUG LOOKUPS RESET
            r $c {*}$cmd
            set n [r $c DEBUG LOOKUPS]
            if {[lindex $cmd 0] eq "BITOP"} {
                assert_equal 2 $n "lookups for $cmd (one source read, one write)"
            } else {
                assert_equal 1 $n "lookups for $cmd"
            }
        }
    }

    test "a SETBIT that changes nothing is not propagated" {
        r $c SET l:p "\x01"
        r $c DEBUG PROPAGATED
        r $c SETBIT l:p 7 1
        r $c BITFIELD l:p SET u8 0 1
        r $c SETBIT l:p 6 1
        set want "*4\r\n\$6\r\nSETBIT\r\n\$3\r\nl:p\r\n\$1\r\n6\r\n\$1\r\n1\r\n"
        assert_equal $want [r $c DEBUG PROPAGATED]
    }
}

finish
