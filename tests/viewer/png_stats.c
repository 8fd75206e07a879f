// Prints "WIDTH HEIGHT COLOURS" of a PNG (distinct RGB values, capped at 100000): the viewer
// tests use it to tell a real picture from a blank one.
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int compare(const void* a, const void* b) {
    unsigned x = *(const unsigned*)a, y = *(const unsigned*)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char** argv) {
    if (argc != 2) return 2;
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&img, argv[1])) {
        fprintf(stderr, "%s: not a PNG\n", argv[1]);
        return 1;
    }
    img.format = PNG_FORMAT_RGB;
    size_t n = (size_t)img.width * img.height;
    unsigned char* px = malloc(3 * n);
    unsigned* rgb = malloc(n * sizeof *rgb);
    if (!px || !rgb || !png_image_finish_read(&img, NULL, px, 0, NULL)) return 1;
    for (size_t i = 0; i < n; ++i) rgb[i] = (unsigned)px[3 * i] << 16 | (unsigned)px[3 * i + 1] << 8 | px[3 * i + 2];
    qsort(rgb, n, sizeof *rgb, compare);
    size_t colours = n ? 1 : 0;
    for (size_t i = 1; i < n; ++i) colours += rgb[i] != rgb[i - 1];
    printf("%u %u %zu\n", img.width, img.height, colours);
    free(px);
    free(rgb);
    return 0;
}
