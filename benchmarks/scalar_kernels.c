/* C twins of the kernels in scalar_kernels.py, compiled by bench_scalar.py at benchmark time
 * (gcc -O3 -march=native -ffp-contract=off: no FMA contraction, so float results match Python's
 * IEEE evaluation order) and called through ctypes. */
#include <math.h>
#include <stdint.h>

double leibniz_pi(int64_t terms) {
    double total = 0.0, sign = 1.0;
    for (int64_t k = 0; k < terms; k++) {
        total += sign / (double)(2 * k + 1);
        sign = -sign;
    }
    return 4.0 * total;
}

int64_t collatz_steps(int64_t limit) {
    int64_t total = 0;
    for (int64_t start = 1; start < limit; start++) {
        int64_t n = start;
        while (n != 1) {
            n = (n % 2 == 0) ? n / 2 : 3 * n + 1;
            total++;
        }
    }
    return total;
}

double trapezoid_sin(int64_t intervals) {
    double width = M_PI / (double)intervals;
    double total = 0.5 * (sin(0.0) + sin(M_PI));
    for (int64_t i = 1; i < intervals; i++)
        total += sin((double)i * width);
    return total * width;
}

int64_t count_primes(int64_t limit) {
    int64_t count = 0;
    for (int64_t n = 2; n < limit; n++) {
        int is_prime = 1;
        for (int64_t d = 2; d * d <= n; d++) {
            if (n % d == 0) {
                is_prime = 0;
                break;
            }
        }
        count += is_prime;
    }
    return count;
}

double logistic_map(int64_t steps) {
    double r = 3.9, x = 0.5, total = 0.0;
    for (int64_t i = 0; i < steps; i++) {
        x = r * x * (1.0 - x);
        total += x;
    }
    return total / (double)steps;
}

int64_t fib(int64_t n) {
    if (n < 2)
        return n;
    return fib(n - 1) + fib(n - 2);
}
