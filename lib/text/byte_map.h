/*
 * GPT-2's characters for bytes. Its vocabulary holds text, not bytes: each
 * byte is written as one printable character, itself where Latin-1 prints
 * it (0x21-0x7E, 0xA1-0xAC, 0xAE-0xFF) and otherwise U+0100 onwards in
 * byte order (0x00 is U+0100 "Ā", the space 0x20 is U+0120 "Ġ", the
 * newline 0x0A U+010A "Ċ", 0xAD the last, U+0143), so that no token holds
 * whitespace or control characters.
 */
#ifndef SVK_TEXT_BYTE_MAP_H
#define SVK_TEXT_BYTE_MAP_H

#include <stddef.h>
#include <stdint.h>

/* The character standing for byte b. */
uint32_t svk_byte_to_char(uint8_t b);

/* The byte that character c stands for, or -1 if it stands for none. */
int svk_char_to_byte(uint32_t c);

/* Byte b's character in UTF-8 into out (1 or 2 bytes, no terminator);
 * returns the length. */
size_t svk_byte_char_utf8(uint8_t b, char out[2]);

#endif
