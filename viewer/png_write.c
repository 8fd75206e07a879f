#include "viewer.h"

#include <png.h>
#include <stdio.h>
#include <stdlib.h>

bool tc_png_write(const char* path, const unsigned char* rgba, int w, int h, char* error, size_t error_size) {
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE* f = fopen(tmp, "wb");
    if (!f) {
        snprintf(error, error_size, "%s: cannot create the file", path);
        return false;
    }
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    png_bytep* rows = malloc((size_t)h * sizeof *rows);
    bool ok = png && info && rows;
    if (ok && setjmp(png_jmpbuf(png))) ok = false; // libpng reports errors by longjmp
    else if (ok) {
        png_init_io(png, f);
        png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, 8, PNG_COLOR_TYPE_RGBA, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                     PNG_FILTER_TYPE_DEFAULT);
        for (int y = 0; y < h; ++y) rows[y] = (png_bytep)(rgba + (size_t)(h - 1 - y) * (size_t)w * 4); // GL rows are bottom-up
        png_set_rows(png, info, rows);
        png_write_png(png, info, PNG_TRANSFORM_IDENTITY, NULL);
    }
    png_destroy_write_struct(png ? &png : NULL, info ? &info : NULL);
    free(rows);
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) {
        remove(tmp);
        snprintf(error, error_size, "%s: cannot write the PNG", path);
        return false;
    }
    return true;
}
